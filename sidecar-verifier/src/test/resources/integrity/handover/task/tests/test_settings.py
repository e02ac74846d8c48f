# A test module that hands the settings loader its own file, as flask's tests hand Config.from_pyfile theirs; its case
# table sits in the same file.
import pytest

from calc import settings
from calc.ops import divide

ROUNDING = "half-even"
QUOTIENTS = [(-6, 3, -2.0), (7, -2, -3.5), (-9, -3, 3.0)]


@pytest.fixture(autouse=True)
def strict(monkeypatch):
    monkeypatch.setattr(settings, "STRICT", True)  # a test that sets the tree's module: graded in-process


def test_settings_from_this_file():
    assert settings.Settings().load_pyfile(__file__)["ROUNDING"] == "half-even"


@pytest.mark.parametrize("a,b,q", QUOTIENTS, ids=["neg-pos", "pos-neg", "neg-neg"])
def test_signed_quotients(a, b, q):
    assert divide(a, b) == q
