# Rules on comparison methods: __eq__ and friends that compare nothing, read state, or are bound to other types' methods.
import ast

from .fold import dotted
from .rule_tables import EQ_NAMES, EQ_STATE_PREFIXES


class EqualityRules:
    """Mixin of Analyzer (self.resolve, self.hit, self.functions, ... come from it)."""

    # ---- equality ------------------------------------------------------------------------------
    def _const_expr(self, e, params):
        """True when the expression cannot depend on the arguments: no name of them, or x == x / x is x."""
        names = {n.id for n in ast.walk(e) if isinstance(n, ast.Name)}
        if not (names & params):
            return True
        if isinstance(e, ast.Compare) and len(e.comparators) == 1 and ast.dump(e.left) == ast.dump(e.comparators[0]):
            return True
        if isinstance(e, ast.BoolOp) and isinstance(e.op, ast.Or):
            return any(isinstance(v, ast.Constant) and v.value for v in e.values)
        return False

    def _fake_comparison(self, fn):
        """Why a comparison function compares nothing, or None when it does."""
        a = fn.args
        params = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
        if a.vararg:
            params.append(a.vararg.arg)
        if a.kwarg:
            params.append(a.kwarg.arg)
        if isinstance(fn, ast.Lambda):
            body_returns = [fn.body]
            body = [fn.body]
        else:
            body = fn.body
            body_returns = [n.value for n in ast.walk(fn) if isinstance(n, ast.Return)]
            if not body_returns:
                return None  # returns None: == is falsy, nothing passes through it
        if all(isinstance(r, ast.Name) and r.id == "NotImplemented" or (isinstance(r, ast.Attribute) and r.attr == "NotImplemented")
               for r in body_returns if r is not None):
            return None
        others = params[1:] if len(params) >= 2 else params[-1:] if a.vararg else []
        used = {n.id for b in body for n in ast.walk(b) if isinstance(n, ast.Name)}
        if others and not any(o in used for o in others):
            return "ignores the other operand"
        if not others and not a.vararg:
            return "takes no other operand"
        ps = self._tainted(fn, set(params) - {"self", "cls"} if len(params) > 1 else set(params))
        if all(r is not None and self._const_expr(r, ps) for r in body_returns):
            return "returns a constant"
        return None

    @staticmethod
    def _tainted(fn, names):
        """The parameters plus every local assigned from them (result = self.__eq__(other); return not result)."""
        out = set(names)
        if isinstance(fn, ast.Lambda):
            return out
        stores = []
        for n in ast.walk(fn):
            if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr)) and n.value is not None:
                targets = n.targets if isinstance(n, ast.Assign) else [n.target]
                stores.append(({t.id for tg in targets for t in ast.walk(tg) if isinstance(t, ast.Name)},
                               {x.id for x in ast.walk(n.value) if isinstance(x, ast.Name)}))
            elif isinstance(n, (ast.For, ast.comprehension)):
                stores.append(({t.id for t in ast.walk(n.target) if isinstance(t, ast.Name)},
                               {x.id for x in ast.walk(n.iter) if isinstance(x, ast.Name)}))
        changed = True
        while changed:
            changed = False
            for targets, used in stores:
                if used & out and not targets <= out:
                    out |= targets
                    changed = True
        return out

    def _comparison_shaped(self, value):
        """A two-argument lambda that ignores its second argument or returns a constant."""
        if not isinstance(value, ast.Lambda):
            return False
        a = value.args
        return len(a.posonlyargs + a.args) >= 2 and self._fake_comparison(value) is not None

    def _check_binding(self, node, name, value, class_bases):
        """A comparison dunder bound to a value (class body, setattr, type() dict, patched attribute)."""
        if name == "__hash__":
            return
        if isinstance(value, ast.Lambda):
            why = self._fake_comparison(value)
            if why:
                self.hit(node, "eq-lambda", "equality-override", "critical", "%s bound to a lambda that %s" % (name, why))
            return
        if isinstance(value, ast.Name) and value.id in self.functions and value.id not in self.aliases:
            why = self._fake_comparison(self.functions[value.id])
            if why:
                self.hit(node, "eq-function", "equality-override", "critical", "%s bound to %s, which %s" % (name, value.id, why))
            return
        if isinstance(value, ast.Constant) and value.value is None:
            return
        ref = self.resolve(value)
        if ref:
            owner, _, attr = ref.rpartition(".")
            if attr == name and (owner in class_bases or owner.rpartition(".")[2] in class_bases or owner == "object"):
                return  # explicitly inheriting the base type's own method
            if attr.startswith("__") or "." in ref:
                self.hit(node, "eq-reference", "equality-override", "critical", "%s bound to another type's method %s" % (name, ref))
                return
        self.hit(node, "eq-opaque", "equality-override", "medium", "%s bound to an expression, not a method that compares" % name)

    def visit_ClassDef(self, node):
        bases = {dotted(b) or "" for b in node.bases} | {(dotted(b) or "").rpartition(".")[2] for b in node.bases}
        self.class_stack.append(bases)
        for d in node.decorator_list:
            self.visit(d)
        for stmt in node.body:
            if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                for t in targets:
                    if isinstance(t, ast.Name) and t.id in EQ_NAMES and stmt.value is not None:
                        self._check_binding(stmt, t.id, stmt.value, bases)
                    if isinstance(t, ast.Name) and t.id == "__hash__" and isinstance(stmt.value, ast.Lambda) and \
                            all(self._const_expr(stmt.value.body, set()) for _ in [0]):
                        self.hit(stmt, "hash-constant", "equality-override", "info", "__hash__ returns a constant")
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name in EQ_NAMES | {"__hash__"}:
                self._check_def(stmt)
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name.startswith("pytest_") and \
                    not (self.is_conftest or self.is_test):
                self._hook(stmt, stmt.name, "a plugin class method")
        self.generic_visit_body(node)
        self.class_stack.pop()

    def generic_visit_body(self, node):
        for stmt in node.body:
            self.visit(stmt)
        for k in node.keywords if isinstance(node, ast.ClassDef) else []:
            self.visit(k)

    def _check_def(self, fn):
        if fn.name == "__hash__":
            rets = [n.value for n in ast.walk(fn) if isinstance(n, ast.Return)]
            if rets and all(r is not None and self._const_expr(r, {a.arg for a in fn.args.args}) for r in rets):
                self.hit(fn, "hash-constant", "equality-override", "info", "__hash__ returns a constant")
            return
        why = self._fake_comparison(fn)
        if why:
            self.hit(fn, "eq-constant", "equality-override", "critical", "%s %s" % (fn.name, why))
        elif fn.name in EQ_NAMES and not (self.is_test or self.is_conftest) and self._deferred_truth(fn):
            self.hit(fn, "eq-deferred-truth", "equality-override", "high",
                     "%s returns a %s, whose truth its own __bool__ decides later, not a bool" % (fn.name, self._deferred_truth(fn)))
        elif fn.name in EQ_NAMES and not (self.is_test or self.is_conftest):
            state = self._eq_state(fn, 0)
            if state:
                self.hit(fn, "eq-reads-state", "equality-override", "high",
                         "%s consults %s, not only its operands (it can answer differently while a test runs)" % (fn.name, state))
        for d in fn.decorator_list:
            ref = self.resolve(d.func if isinstance(d, ast.Call) else d) or ""
            if isinstance(d, ast.Lambda):
                self.hit(fn, "eq-decorated", "equality-override", "critical", "%s replaced by a lambda decorator" % fn.name)
            elif ref not in ("staticmethod", "classmethod", "functools.wraps", "typing.override", "typing_extensions.override",
                             "abc.abstractmethod", "override", "abstractmethod", "functools.cache", "functools.lru_cache") \
                    and not ref.endswith(".wraps") and not ref.endswith("_recursive_repr"):
                sev = "info" if self._plain_wrapper(ref) else "medium"
                self.hit(fn, "eq-decorated", "equality-override", sev, "%s wrapped by decorator %s" % (fn.name, ref or "?"))

    def _deferred_truth(self, fn):
        """The class of this module a comparison returns an instance of, when that class decides its own truth
        (__bool__ or __len__) other than by refusing (an element-wise result whose __bool__ only raises is honest)."""
        classes = getattr(self, "_module_classes", None)
        if classes is None:
            classes = self._module_classes = {n.name: n for n in ast.walk(self.tree) if isinstance(n, ast.ClassDef)}
        for r in ast.walk(fn):
            if not (isinstance(r, ast.Return) and isinstance(r.value, ast.Call) and isinstance(r.value.func, ast.Name)):
                continue
            seen, name = set(), r.value.func.id
            while name in classes and name not in seen:
                seen.add(name)
                cls = classes[name]
                for m in cls.body:
                    if isinstance(m, ast.FunctionDef) and m.name in ("__bool__", "__len__") and \
                            not all(isinstance(s, (ast.Raise, ast.Expr)) for s in m.body):
                        return r.value.func.id
                bases = [b.id for b in cls.bases if isinstance(b, ast.Name)]
                name = bases[0] if bases else None
        return None

    def _plain_wrapper(self, ref):
        """A decorator of this file whose wrappers compare like any __eq__ (no constant answer, no state read): the
        coercion idiom. Its answer is the wrapped method's; the isolated oracle's decoys still test it."""
        dec = self.functions.get(ref)
        if not isinstance(dec, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return False
        inner = [n for n in ast.walk(dec) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and n is not dec]
        return bool(inner) and all(isinstance(n, ast.FunctionDef) and not self._fake_comparison(n) and not self._eq_state(n, 0)
                                   for n in inner) and not self._eq_state(dec, 0)

    def _eq_state(self, fn, depth):
        """The first environment/clock/caller read in fn's body, or in a function of this module that it calls."""
        for n in ast.walk(fn):
            if isinstance(n, (ast.Attribute, ast.Name, ast.Call)):
                ref = self.resolve(n.func if isinstance(n, ast.Call) else n) or ""
                if ref.startswith(EQ_STATE_PREFIXES) and ref not in ("warnings.warn", "warnings.warn_explicit"):
                    return ref  # (a warning is emitted, not read: a deprecation in __eq__ answers from its operands)
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and depth < 2:
                    callee = self.functions.get(n.func.id)
                    if isinstance(callee, (ast.FunctionDef, ast.AsyncFunctionDef)) and callee is not fn:
                        inner = self._eq_state(callee, depth + 1)
                        if inner:
                            return inner
        return None
