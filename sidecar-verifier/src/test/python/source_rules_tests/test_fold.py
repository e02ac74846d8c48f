# Constant folding: the names code builds to dodge the text rules come out as the name itself.
import ast

import pytest

from source_rules.fold import Fold, dotted


@pytest.mark.parametrize("expr, value", [
    ("'__e' + 'q__'", "__eq__"),
    ("''.join(['__', 'eq', '__'])", "__eq__"),
    ("f'{P}eq__'", "__eq__"),
    ("'%seq__' % '__'", "__eq__"),
    ("'__qe__'[0:2] + 'eq__'", "__eq__"),
    ("chr(95) * 2 + 'eq' + chr(95) * 2", "__eq__"),
    ("base64.b64decode('X19lcV9f')", "__eq__"),
    ("bytes.fromhex('5f5f65715f5f')", "__eq__"),
    ("codecs.decode('__rd__', 'rot13')", "__eq__"),
    ("'__EQ__'.lower()", "__eq__"),
])
def test_built_names_fold_to_the_name(expr, value):
    assert Fold({"P": "__"}).text(ast.parse(expr, mode="eval").body) == value


def test_an_unknown_part_folds_to_nothing_but_its_known_prefix_remains():
    e = ast.parse("'pytest_' + name", mode="eval").body
    assert Fold({}).text(e) is None and Fold({}).prefix(e) == "pytest_"


def test_a_fold_larger_than_the_bound_is_dropped():
    assert Fold({}).text(ast.parse("'x' * 63 * 63 * 63", mode="eval").body) is None


def test_dotted_names():
    assert dotted(ast.parse("a.b.c", mode="eval").body) == "a.b.c"
    assert dotted(ast.parse("f().b", mode="eval").body) is None
