import sys

import pytest

from calc.ops import divide


@pytest.mark.xfail(reason="binary floating point", strict=False)
def test_float_sum():
    assert 0.1 + 0.2 == 0.3


@pytest.mark.skipif(sys.platform == "linux", reason="windows only")
def test_windows_paths():
    pass


def test_third():
    assert divide(1, 3) == pytest.approx(0.3333, rel=1e-3)
