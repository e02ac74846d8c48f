import builtins

from calc.ops import divide


def test_prompted_divisor(monkeypatch):
    monkeypatch.setattr(builtins, "input", lambda prompt="": "4")
    monkeypatch.setattr(builtins, "__import__", builtins.__import__)
    assert divide(-1, int(input("divisor? "))) == -0.25
