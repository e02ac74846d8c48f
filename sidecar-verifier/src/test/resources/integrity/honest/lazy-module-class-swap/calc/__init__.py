"""calc: submodules load on first use (the package gives its own module a ModuleType subclass)."""
import importlib
import sys
import types

_WHERE = {"add": ".ops", "divide": ".ops"}


class _LazyModule(types.ModuleType):
    def __getattr__(self, name):
        if name in _WHERE:
            value = getattr(importlib.import_module(_WHERE[name], __name__), name)
            setattr(self, name, value)
            return value
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


sys.modules[__name__].__class__ = _LazyModule
