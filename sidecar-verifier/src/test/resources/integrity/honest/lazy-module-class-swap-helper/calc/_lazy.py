import importlib
import sys
import types


def lazy_module(name, where):
    """Makes module `name` load the attributes in `where` from its submodules on first use."""

    class _LazyModule(types.ModuleType):
        def __getattr__(self, attr):
            if attr in where:
                value = getattr(importlib.import_module(where[attr], name), attr)
                setattr(self, attr, value)
                return value
            raise AttributeError(f"module {name!r} has no attribute {attr!r}")

    sys.modules[name].__class__ = _LazyModule
