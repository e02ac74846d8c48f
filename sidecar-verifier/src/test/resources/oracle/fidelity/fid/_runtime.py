"""fid.made is a module no file holds: a finder appended to sys.meta_path makes it (as toolz's tlz does)."""
import importlib.abc
import importlib.machinery
import sys
import types


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        if fullname == "fid.made":
            return importlib.machinery.ModuleSpec(fullname, self)
        return None

    def create_module(self, spec):
        return types.ModuleType(spec.name, "made at run time")

    def exec_module(self, module):
        module.answer = 42


def install():
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.append(_Finder())
