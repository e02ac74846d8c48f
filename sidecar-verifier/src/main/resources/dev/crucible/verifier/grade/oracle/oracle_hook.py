# The trusted side's import hook: a module of the tree under test (a file under the tree's root that is
# not a trusted test file) is never executed here; importing it gives a stand-in module whose attributes
# are the worker's, so `from calc.ops import add` binds a remote function.
import importlib.abc
import importlib.machinery
import os
import sys
import types

TEST_PATTERNS = ("conftest.py",)


def is_test_name(base):
    return base in TEST_PATTERNS or (base.endswith(".py") and (base.startswith("test_") or base.endswith("_test.py")))


class Tree:
    """Which files of the tree are trusted test code (run here) and which are the code under test."""

    def __init__(self, root, trusted=None):
        self.root = os.path.realpath(root)
        self.trusted = None if trusted is None else {os.path.normpath(p) for p in trusted}

    def rel(self, path):
        p = os.path.realpath(path)
        if p == self.root or not p.startswith(self.root + os.sep):
            return None
        return os.path.relpath(p, self.root)

    def is_trusted(self, rel):
        if self.trusted is not None:  # the grader named its files: only those are test code
            return rel in self.trusted
        parts = rel.split(os.sep)
        return is_test_name(parts[-1]) or any(d in ("tests", "test", "testing") for d in parts[:-1])

    def trusted_files(self):
        """Every trusted file present in the tree: the worker's view masks them."""
        out = []
        if self.trusted is not None:
            out = [r for r in sorted(self.trusted) if os.path.isfile(os.path.join(self.root, r))]
        for d, dirs, files in os.walk(self.root):
            dirs[:] = [x for x in dirs if not x.startswith(".") and x != "__pycache__"]
            for f in files:
                rel = os.path.relpath(os.path.join(d, f), self.root)
                if (is_test_name(f) or self.is_trusted(rel)) and f.endswith(".py") and rel not in out:
                    out.append(rel)
        return out


# the module's own namespace here (the `__dict__` attribute of a stand-in is the worker's module's, below)
_own = types.ModuleType.__dict__["__dict__"].__get__
# metadata dunders a test may read from the tree's module (`toolz.__version__`); others (the import system's and
# libraries' probes: __path__, __wrapped__, __getattr__ ...) stay unanswered, as they are for any module lacking them
_META = frozenset(("__version__", "__all__", "__author__", "__version_info__", "__license__", "__copyright__", "__email__",
                   "__title__", "__credits__", "__status__", "__maintainer__"))


class StandInModule(types.ModuleType):
    """A module of the code under test: its attributes live in the worker."""

    @property
    def __dict__(self):
        # vars(mod), mod.__dict__, `from mod import *` without __all__: the worker's module namespace, its answer
        session = _own(self).get("_oracle_session")
        if session is None or session.conn.ended:  # after the session (the reporter's teardown): its own
            return _own(self)
        return session.request({"op": "get", "o": ["r", session.standin_ref(self)], "name": "__dict__"})

    def __getattr__(self, name):
        d = _own(self)
        session = d.get("_oracle_session")
        if session is None or (name.startswith("__") and name.endswith("__") and name not in _META):
            raise AttributeError(name)
        try:
            return session.request({"op": "get", "o": ["r", session.standin_ref(self)], "name": name})
        except AttributeError:
            raise
        except Exception as e:
            if type(e).__name__ == "AttributeError":
                raise AttributeError(name)
            raise

    def __setattr__(self, name, value):
        # the import system binds submodules and module metadata; anything else patches the code under
        # test, which lives in the worker: that test needs in-process grading
        # a trusted submodule too: the import system binds a package's own tests (toolz/tests) on the tree's package
        submodule = isinstance(value, types.ModuleType) and getattr(value, "__name__", None) == "%s.%s" % (self.__name__, name)
        if submodule or (name.startswith("__") and name.endswith("__")) or name.startswith("_oracle_"):
            object.__setattr__(self, name, value)
            return
        if _already_in_process(self):
            return  # the patch's undo, or a second patch: the test is graded in-process anyway
        from oracle_conn import NeedsInProcess
        raise NeedsInProcess("a test sets %s.%s of the code under test" % (self.__name__, name))

    def __delattr__(self, name):
        if _already_in_process(self):
            return
        from oracle_conn import NeedsInProcess
        raise NeedsInProcess("a test deletes %s.%s of the code under test" % (self.__name__, name))

    def __dir__(self):
        session = _own(self).get("_oracle_session")
        names = session.op("dir", self) if session is not None else []
        return sorted(set(names if type(names) is list else []) | set(_own(self)))


def _already_in_process(mod):
    session = _own(mod).get("_oracle_session")
    rec = session.conn.test if session is not None else None
    return rec is not None and bool(rec.needs)


class Loader(importlib.abc.Loader):
    def __init__(self, hook):
        self.hook = hook

    def create_module(self, spec):
        m = StandInModule(spec.name)
        object.__setattr__(m, "_oracle_session", self.hook.session)
        object.__setattr__(m, "_oracle_standin_rid", None)
        return m

    def exec_module(self, module):
        # importing it in the worker is the module's execution; an ImportError there is this import's
        session = self.hook.session
        session.standin_ref(module)
        # its docstring and what its own code set of its metadata (toolz's tlz names toolz's files), as in-process
        for name in ("__doc__", "__package__", "__file__"):
            try:
                v = session.request({"op": "get", "o": ["r", session.standin_ref(module)], "name": name})
            except AttributeError:
                continue
            shown, root = getattr(self.hook, "shown", None), self.hook.tree.root
            if name == "__file__" and type(v) is str and shown and shown != root and v.startswith(shown + os.sep):
                v = root + v[len(shown):]  # the worker's copy lies at the agent's path; here the module is the grading tree's
            if v is None and name != "__file__" or type(v) is str:
                object.__setattr__(module, name, v)


class Finder(importlib.abc.MetaPathFinder):
    def __init__(self, tree, session):
        self.tree, self.session = tree, session
        self.loader = Loader(self)
        self.names = set()  # stand-in modules made so far
        self.shown = None  # where the worker sees the tree (the plugin's), when not at tree.root

    def find_spec(self, fullname, path=None, target=None):
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None and isinstance(sys.modules.get(fullname.rpartition(".")[0]), StandInModule):
            # a submodule of the tree's package with no file: the tree makes it at run time (its own import hook, as
            # toolz's tlz does); the worker imports it, and an ImportError there is this import's
            new = importlib.machinery.ModuleSpec(fullname, self.loader, is_package=True)
            new.submodule_search_locations = []
            self.names.add(fullname)
            return new
        if spec is None or spec.origin in (None, "namespace") and not spec.submodule_search_locations:
            return None
        where = spec.origin if spec.has_location and spec.origin else None
        if where is None:  # a namespace package: the tree's when one of its folders is
            locs = list(spec.submodule_search_locations or [])
            if not any(self.tree.rel(p) is not None for p in locs):
                return None
            if all(self.tree.is_trusted(os.path.join(self.tree.rel(p) or "", "x.py")) for p in locs if self.tree.rel(p)):
                return None
            new = importlib.machinery.ModuleSpec(fullname, self.loader, is_package=True)
            new.submodule_search_locations = locs
            self.names.add(fullname)
            return new
        rel = self.tree.rel(where)
        if rel is None or self.tree.is_trusted(rel):
            return None
        if "." not in fullname and fullname != "test" and fullname in getattr(sys, "stdlib_module_names", ()):
            return self._stdlib(fullname, rel)
        new = importlib.machinery.ModuleSpec(fullname, self.loader, origin=spec.origin,
                                             is_package=spec.submodule_search_locations is not None)
        if spec.submodule_search_locations is not None:
            new.submodule_search_locations = list(spec.submodule_search_locations)
        new.has_location = True
        self.names.add(fullname)
        return new

    def _stdlib(self, name, rel):
        """A standard library name the tree's folders on sys.path would answer (blind round 20, e06: the package put its
        _vendor folder first on sys.path, and a hidden test's `import filecmp` got the tree's, whose cmp always agreed):
        the trusted side imports the standard library's own, never a stand-in of the tree's, and records it."""
        if self.session is not None:
            self.session.conn.attempts.add("stdlib-shadow", "the tree's %s would stand for the standard library's %s in a test"
                                           % (rel, name), self.session.conn.test)
        if name in sys.builtin_module_names:
            return importlib.machinery.BuiltinImporter.find_spec(name)
        import sysconfig
        paths = sysconfig.get_paths()
        dirs = [paths["stdlib"], paths["platstdlib"], os.path.join(paths["platstdlib"], "lib-dynload")]
        spec = importlib.machinery.FrozenImporter.find_spec(name) or importlib.machinery.PathFinder.find_spec(name, dirs)
        if spec is None:
            raise ImportError("%s: the tree's %s stands in for a standard library module this interpreter lacks" % (name, rel))
        return spec

    def standin_for(self, name):
        """The stand-in module of `name` if it is one of the tree's (imported here as one), else None."""
        m = sys.modules.get(name)
        if isinstance(m, StandInModule):
            return m
        if name in sys.modules or self.find_spec(name.rpartition(".")[2] if False else name,
                                                  _parent_path(name)) is None:
            return None
        import importlib
        return importlib.import_module(name)


def _parent_path(name):
    parent = name.rpartition(".")[0]
    if not parent:
        return None
    m = sys.modules.get(parent)
    return getattr(m, "__path__", None) if m is not None else None
