from calc.ops import divide


def test_with_fixture(divisor):
    assert divide(-1, divisor) == -0.25
