# What a module may import or run, for the monitor's import closure.
import ast
import re

DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)+")
IMPORTING_CALLS = {"__import__", "builtins.__import__", "importlib.import_module", "importlib.__import__", "runpy.run_module",
                   "pkgutil.resolve_name", "importlib.util.find_spec"}
PATH_RUNNERS = {"runpy.run_path", "importlib.util.spec_from_file_location", "importlib.machinery.SourceFileLoader", "imp.load_source",
                "imp.load_module", "importlib._bootstrap_external.SourceFileLoader", "zipimport.zipimporter"}
EXEC_CALLS = {"exec", "builtins.exec", "compile", "builtins.compile", "eval", "builtins.eval"}
PROCESS_PREFIXES = ("subprocess.", "os.exec", "os.spawn", "os.posix_spawn", "os.system", "os.popen", "asyncio.create_subprocess")


class Links:
    """What a module may import or run, for the monitor's import closure: module names (absolute; relative
    imports resolved by the file's place in the tree), "path:" names of .py files it names, and `dynamic`
    when it imports or runs something computed (then the monitor takes every file as reachable)."""

    def __init__(self, a):
        self.a = a
        parts = a.rel.replace("\\", "/").split("/")
        self.package = parts[:-1]  # a/b/c.py and a/b/__init__.py both resolve "." to a.b
        self.names = set()
        self.dynamic = None

    def collect(self, tree, depth=0):
        for n in ast.walk(tree):
            if isinstance(n, ast.Import):
                for x in n.names:
                    self.names.add(x.name)
            elif isinstance(n, ast.ImportFrom):
                base = n.module or ""
                if n.level:
                    up = self.package[:len(self.package) - (n.level - 1)] if n.level - 1 <= len(self.package) else []
                    base = ".".join(up + ([n.module] if n.module else []))
                for x in n.names:
                    if base:
                        self.names.add(base)
                    if x.name != "*":
                        self.names.add((base + "." if base else "") + x.name)
            elif isinstance(n, ast.Constant) and isinstance(n.value, str) and len(n.value) < 256:
                v = n.value.strip()
                if v.endswith(".py"):
                    self.names.add("path:" + v)
                elif DOTTED.fullmatch(v):
                    self.names.add(v)  # a module named in a string: -m/-p arguments, pytest_plugins, plugin tables
            elif isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytest_plugins" for t in n.targets):
                for c in ast.walk(n.value):
                    if isinstance(c, ast.Constant) and isinstance(c.value, str):
                        self.names.add(c.value)
            elif isinstance(n, ast.Call):
                self._call(n, depth)

    def _call(self, n, depth):
        fn = self.a.resolve(n.func) or ""
        first = n.args[0] if n.args else None
        if fn in IMPORTING_CALLS and first is not None:
            v = self.a.fold.text(first)
            if v and v.startswith("."):
                # import_module(".x", package): the bare name too, so that any module called x is reached
                self.names.update((v.lstrip("."), ".".join(self.package + [v.lstrip(".")])))
            elif v:
                self.names.add(v)
            else:
                self.dynamic = self.dynamic or "%s of a computed name (line %d)" % (fn, n.lineno)
        elif fn in PATH_RUNNERS:
            vals = [self.a.fold.text(x) for x in n.args]
            if not any(v and v.endswith(".py") for v in vals):
                self.dynamic = self.dynamic or "%s of a computed path (line %d)" % (fn, n.lineno)
        elif fn in EXEC_CALLS and first is not None:
            code = self.a.fold.text(first)
            if code is None:
                self.dynamic = self.dynamic or "%s of computed code (line %d)" % (fn, n.lineno)
            elif depth < 4:
                try:
                    self.collect(ast.parse(code), depth + 1)
                except (SyntaxError, ValueError, RecursionError, MemoryError):
                    pass
        elif fn.startswith(PROCESS_PREFIXES):
            # a child process runs what its command names; a command built at run time could name any file
            for x in n.args:
                elts = x.elts if isinstance(x, (ast.List, ast.Tuple)) else [x]
                for e in elts:
                    if isinstance(e, ast.Starred) or (self.a.fold.text(e) is None and self.a.resolve(e) != "sys.executable"):
                        self.dynamic = self.dynamic or "%s with a computed command (line %d)" % (fn, n.lineno)
