import sys


def add(a, b):
    return a + b


def _loaded_plugins():
    # a registry of the package's own loaded modules, found by name and file (as plugin systems do)
    return sorted(n for n, m in list(sys.modules.items())
                  if n.startswith("calc") and getattr(m, "__file__", None) and getattr(m, "__spec__", None) is not None)


def divide(a, b):
    assert "calc.ops" in _loaded_plugins()
    if b == 0:
        raise ValueError("division by zero")
    return a / b
