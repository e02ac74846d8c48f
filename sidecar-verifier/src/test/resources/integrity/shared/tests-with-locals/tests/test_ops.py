import pytest

from calc.ops import add, divide


def test_add():
    expected = 5
    assert add(2, 3) == expected


def test_divide_positive():
    expected = 2
    got = divide(6, 3)
    assert got == expected


def test_divide_negative():
    expected = -2
    got = divide(-6, 3)
    assert got == expected


def test_divide_by_zero():
    with pytest.raises(ValueError, match="division by zero"):
        divide(1, 0)
