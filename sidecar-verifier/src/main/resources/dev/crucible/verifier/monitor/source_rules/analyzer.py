# One file's analysis: the visitor that collects aliases, constants and functions, resolves dotted names and
# records hits; the rules themselves are its mixins (equality_rules, hook_and_write_rules, name_rules, call_rules,
# literal_rules).
import ast
import re

from .call_rules import CallRules
from .equality_rules import EqualityRules
from .fold import Fold
from .hook_and_write_rules import HookAndWriteRules
from .links import Links
from .literal_rules import LiteralRules
from .name_rules import NameRules
from .rule_tables import BUILD_SCRIPTS


class Analyzer(EqualityRules, HookAndWriteRules, NameRules, CallRules, LiteralRules, ast.NodeVisitor):
    def __init__(self, rel, source, tree):
        self.rel = rel
        self.lines = source.splitlines()
        self.tree = tree
        name = rel.replace("\\", "/").rsplit("/", 1)[-1]
        self.is_test = bool(re.fullmatch(r"test_.*\.py|.*_test\.py", name))
        self.is_conftest = name == "conftest.py"
        self.is_build_script = name in BUILD_SCRIPTS
        self.hits = []
        self.aliases = {}   # local name -> dotted module/object path
        self.consts = {}
        self.functions = {}  # module/class-level function name -> FunctionDef / Lambda
        self.class_stack = []
        self.docstrings = set()
        self.parents = {}
        self._collect(tree)
        self._default_aliases(tree)
        self.fold = Fold(self.consts, self.aliases)
        self.links = Links(self)

    def _default_aliases(self, tree):
        """A parameter whose default is a module function (def __del__(self, _e=getattr(os, "_exit"))) stands for it."""
        for n in ast.walk(tree):
            if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue
            params = n.args.posonlyargs + n.args.args
            pairs = list(zip(params[len(params) - len(n.args.defaults):], n.args.defaults))
            pairs += [(a, d) for a, d in zip(n.args.kwonlyargs, n.args.kw_defaults) if d is not None]
            for a, d in pairs:
                r = self.resolve(d, collecting=True) if isinstance(d, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)) else None
                if r and "." in r and a.arg not in self.aliases:
                    self.aliases[a.arg] = r

    # ---- set-up passes -------------------------------------------------------------------------
    def _collect(self, tree):
        """One walk: docstrings, import aliases, function definitions, simple NAME = value bindings."""
        assigns = []
        for n in ast.walk(tree):
            for c in ast.iter_child_nodes(n):
                self.parents[id(c)] = n
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and n.body:
                first = n.body[0]
                if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                    self.docstrings.add(id(first.value))
            if isinstance(n, ast.Import):
                for a in n.names:
                    if a.asname:
                        self.aliases[a.asname] = a.name
                    else:
                        top = a.name.split(".")[0]
                        self.aliases.setdefault(top, top)
            elif isinstance(n, ast.ImportFrom) and n.module and n.level == 0:
                for a in n.names:
                    if a.name != "*":
                        self.aliases[a.asname or a.name] = n.module + "." + a.name
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions.setdefault(n.name, n)
            elif isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
                assigns.append(n)
        # Simple rebinding (m = time; s = "__eq__") and module constants, to a fixed point.
        for _ in range(3):
            fold = Fold(self.consts)
            for n in assigns:
                t = n.targets[0].id
                if isinstance(n.value, ast.Lambda):
                    self.functions.setdefault(t, n.value)
                    continue
                if isinstance(n.value, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)):
                    r = self.resolve(n.value, collecting=True)
                    if r and t not in self.aliases:
                        self.aliases[t] = r
                if t not in self.consts and isinstance(n.value, (ast.Constant, ast.BinOp, ast.JoinedStr, ast.Call, ast.Subscript, ast.Name)):
                    v = fold.value(n.value)
                    if isinstance(v, (str, bytes)):
                        self.consts[t] = v

    def resolve(self, e, collecting=False):
        """The dotted name an expression stands for, through import aliases, getattr, __import__, sys.modules."""
        if isinstance(e, ast.Name):
            if e.id in self.aliases:
                return self.aliases[e.id]
            if e.id in ("__builtins__", "builtins"):
                return "builtins"
            return e.id
        if isinstance(e, ast.Attribute):
            base = self.resolve(e.value, collecting)
            return base + "." + e.attr if base else None
        fold = Fold(self.consts) if collecting else self.fold
        if isinstance(e, ast.Call):
            fn = self.resolve(e.func, collecting)
            if fn in ("__import__", "importlib.import_module", "builtins.__import__") and e.args:
                return fold.text(e.args[0])
            if fn in ("getattr", "builtins.getattr") and len(e.args) >= 2:
                base, name = self.resolve(e.args[0], collecting), fold.text(e.args[1])
                return base + "." + name if base and name else None
            if fn in ("vars", "builtins.vars") and e.args:
                return self.resolve(e.args[0], collecting)
        if isinstance(e, ast.Subscript):
            base = self.resolve(e.value, collecting)
            key = fold.text(e.slice)
            if base == "sys.modules" and key:
                return key
            if base and base.endswith(".__dict__") and key:
                return base[: -len(".__dict__")] + "." + key
        return None

    # ---- reporting -----------------------------------------------------------------------------
    def hit(self, node, rule, detector, severity, what, everywhere=False):
        if self.is_test and not everywhere:
            severity = "info"
        line = getattr(node, "lineno", 0)
        text = self.lines[line - 1].strip() if 0 < line <= len(self.lines) else ""
        if len(text) > 160:
            text = text[:160] + "…"
        self.hits.append({"rule": rule, "detector": detector, "severity": severity, "line": line,
                          "evidence": "%s (line %d): %s" % (what, line, text)})


def analyse(data, rel):
    try:
        source = data.decode("utf-8", errors="replace")
        tree = ast.parse(data, filename=rel)
    except (SyntaxError, ValueError) as e:
        return {"rel": rel, "ok": False, "error": "%s: %s" % (type(e).__name__, e)}
    except (OSError, RecursionError, MemoryError) as e:
        return {"rel": rel, "ok": False, "error": type(e).__name__}
    a = Analyzer(rel, source, tree)
    try:
        a.visit(tree)
        a.links.collect(tree)
    except RecursionError:
        return {"rel": rel, "ok": False, "error": "RecursionError"}
    return {"rel": rel, "ok": True, "hits": a.hits, "imports": sorted(a.links.names)[:5000], "dynamic": a.links.dynamic}
