import pickle

from calc.ops import Wrapped


def _double(x):
    return 2 * x


double = Wrapped(_double)
double.__qualname__ = "double"


def test_a_wrapper_pickles_by_reference():
    assert pickle.loads(pickle.dumps(double)) is double
    assert double(4) == 8
