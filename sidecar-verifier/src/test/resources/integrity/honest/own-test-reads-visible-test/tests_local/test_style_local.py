# The agent's own test (blind round 8, h03): it reads the task's visible test file as text to keep the same style.
import pathlib

from calc.ops import divide


def test_style_matches_visible_tests():
    src = (pathlib.Path(__file__).parent.parent / "tests" / "test_ops.py").read_text()
    assert "def test_" in src


def test_negative_local():
    assert divide(-9, 3) == -3
