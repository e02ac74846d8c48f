import pytest

from calc.ops import divide


@pytest.mark.parametrize("a,b,q", [(1, 2, 0.5), (-1, 4, -0.25), pytest.param(9, -3, -3, id="neg-divisor")])
def test_param(a, b, q):
    assert divide(a, b) == q
