import os

from calc.loader import load_cases
from calc.ops import divide

DATA = os.path.join(os.path.dirname(__file__), "data", "cases.json")


def test_cases_from_data_file():
    with open(DATA) as f:
        assert f.read().startswith("[")
    for a, b, q in load_cases(DATA):
        assert divide(a, b) == q
