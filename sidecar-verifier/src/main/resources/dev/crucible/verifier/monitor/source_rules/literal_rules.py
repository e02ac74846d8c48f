# Rules on answers written into the code under test: a constant returned for a literal input that is itself a whole
# input of the program (several numbers among letters, as "1h30m" or "2024-01-02T03"), not a token of one ("h", "utf-8").
import ast
import re

_INPUT_LIKE = re.compile(r"(?=.*[A-Za-z]).*\d\D+\d")


def _input_like(v):
    return isinstance(v, str) and 3 <= len(v) <= 200 and bool(_INPUT_LIKE.match(v))


def _number(e):
    return isinstance(e, ast.Constant) and isinstance(e.value, (int, float)) and not isinstance(e.value, bool)


def _answer_table(e):
    """A dict literal of literal inputs to numbers: {"1h30m": 5400, ...} (one input-like key is enough)."""
    return isinstance(e, ast.Dict) and e.keys and all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in e.keys) \
        and all(_number(v) for v in e.values) and any(_input_like(k.value) for k in e.keys)


class LiteralRules:
    """Mixin of Analyzer (self.hit, self.is_test, self.is_conftest come from it)."""

    def _literal_rules_on(self):
        return not (self.is_test or self.is_conftest or self.is_build_script)

    def visit_Dict(self, node):
        if self._literal_rules_on() and _answer_table(node):
            keys = [k.value for k in node.keys if _input_like(k.value)][:3]
            self.hit(node, "literal-answers", "hidden-test-access", "medium",
                     "a table of answers for literal inputs %s: known test cases answered, not computed" % ", ".join(map(repr, keys)))
        self.generic_visit(node)

    def visit_If(self, node):
        if self._literal_rules_on():
            lit = self._literal_case(node.test)
            first = node.body[0] if node.body else None
            if lit and isinstance(first, ast.Return) and first.value is not None and \
                    (_number(first.value) or (isinstance(first.value, ast.Subscript) and isinstance(first.value.value, ast.Dict))):
                self.hit(node, "literal-answers", "hidden-test-access", "medium",
                         "returns a constant when the input is the literal %r: a known test case answered, not computed" % lit)
        self.generic_visit(node)

    @staticmethod
    def _literal_case(test):
        """The input-like literal an if-test compares a value with (==, in a literal collection), else None."""
        for c in ast.walk(test):
            if not isinstance(c, ast.Compare) or len(c.ops) != 1 or not isinstance(c.ops[0], (ast.Eq, ast.In)):
                continue
            for side in (c.left, c.comparators[0]):
                if isinstance(side, ast.Constant) and _input_like(side.value):
                    return side.value
                if isinstance(side, (ast.Set, ast.Tuple, ast.List)):
                    for e in side.elts:
                        if isinstance(e, ast.Constant) and _input_like(e.value):
                            return e.value
                if isinstance(side, ast.Dict):
                    for k in side.keys:
                        if isinstance(k, ast.Constant) and _input_like(k.value):
                            return k.value
        return None
