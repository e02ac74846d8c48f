import pytest

from calc.ops import add, divide

CASES = [(6, 3, 2), (-6, 3, -2)]


def test_add():
    assert add(2, 3) == 5


@pytest.mark.parametrize("a,b,expected", [(6, 3, 2)])
def test_divide_positive(a, b, expected):
    assert divide(a, b) == expected


def test_divide_negative():
    for a, b, expected in CASES[1:]:
        assert divide(a, b) == expected


def test_divide_by_zero():
    with pytest.raises(ValueError, match="division by zero"):
        divide(1, 0)
