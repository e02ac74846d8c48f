# The grader's own Python runs inside the project's test processes, under the project's warning settings: black's CI
# sets PYTHONWARNDEFAULTENCODING=1 and turns warnings into errors, so one open() naming no text codec in the oracle's
# plugin stopped pytest from loading it (derive, session 25: black unusable). Every text-mode open() of the grader's
# Python resources names its codec; a binary open needs none.
import ast
import os

RESOURCES = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "main", "resources", "dev", "crucible",
                                         "verifier", "grade"))


def _mode(call):
    if len(call.args) > 1 and isinstance(call.args[1], ast.Constant):
        return call.args[1].value
    for k in call.keywords:
        if k.arg == "mode" and isinstance(k.value, ast.Constant):
            return k.value.value
    return "r"


def _opens_without_encoding(path):
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in ("io", "builtins") else None
        if name != "open" or any(k.arg == "encoding" for k in node.keywords) or len(node.args) > 3:
            continue
        mode = _mode(node)
        if isinstance(mode, str) and "b" in mode:
            continue
        yield "%s:%d" % (os.path.relpath(path, RESOURCES), node.lineno)


def test_every_text_open_of_the_graders_python_names_its_encoding():
    found = []
    for d, _, names in os.walk(RESOURCES):
        for n in names:
            if n.endswith(".py"):
                found.extend(_opens_without_encoding(os.path.join(d, n)))
    assert not found, found
