# A library's exception the tree raised, as this process's own class (found on pallets/flask and click: werkzeug's
# BuildError and Unauthorized, click's BadParameter). The worker names each class of the exception's ancestry; a class
# of the tree is a local mirror (Mirrors, below), but a library's class is one the test imported itself, and a
# mirror of the same name is another class: `pytest.raises(BuildError)` missed what in-process it catches. So a name
# whose module this process already holds (never imported here for the worker's word), outside the tree and outside
# the grader's own folders, is that module's class, an Exception subclass of no runner's control-flow kind (pytest's
# outcomes are BaseExceptions; unittest's SkipTest and those named below are refused: a skip counts as a pass where
# skipped tests count), as a subclass whose str() is its arguments' (_argued). The worker's name chooses only among
# classes the test could catch in-process as well. Mirrors (moved here from oracle_conn, which re-exports it) asks
# finder's function first for each name, else makes a mirror.
import builtins
import os
import sys
import types

# top-level packages whose exceptions steer a runner or are the grader's own: their names keep a mirror
_RUNNERS = frozenset(("_pytest", "pytest", "pluggy", "py", "unittest", "nose", "nose2", "twisted", "doctest", "hypothesis"))
_GRADER_PREFIX = ("oracle_", "crucible", "reporter_")
_MOD_DICT = types.ModuleType.__dict__["__dict__"].__get__
_CLS_DICT = type.__dict__["__dict__"].__get__


def _skips():
    out = []
    for mod, name in (("unittest", "SkipTest"), ("unittest.case", "SkipTest"), ("nose.plugins.skip", "SkipTest"),
                      ("twisted.trial.unittest", "SkipTest")):
        c = getattr(sys.modules.get(mod), name, None)
        if isinstance(c, type):
            out.append(c)
    return tuple(out)


def finder(tree_root, grader_dirs, standin_type):
    """name ("module:Qual.Name") -> the class, or None for a mirror. tree_root: the grading tree; grader_dirs: the
    grader's own folders (real paths); standin_type: the stand-in module class (a tree module here)."""
    root = os.path.realpath(tree_root)
    grader = tuple(os.path.realpath(g) for g in grader_dirs if g)

    def outside(path):
        real = os.path.realpath(path)
        return not any(real == d or real.startswith(d + os.sep) for d in (root,) + grader)

    def find(name):
        if type(name) is not str or ":" not in name:
            return None
        mod, _, qual = name.rpartition(":")
        top = mod.partition(".")[0]
        if top in _RUNNERS or top.startswith(_GRADER_PREFIX) or top == "builtins":
            return None
        m = sys.modules.get(mod)
        if not isinstance(m, types.ModuleType) or isinstance(m, standin_type):
            return None
        f = _MOD_DICT(m).get("__file__")
        if type(f) is not str or not outside(f):  # a built-in module, the tree's, a test's or the grader's
            return None
        c = _MOD_DICT(m).get(qual.partition(".")[0])
        for part in qual.split(".")[1:]:  # a nested class: read from the class's own dicts, no descriptor runs
            c = _CLS_DICT(c).get(part) if isinstance(c, type) else None
        if not (isinstance(c, type) and issubclass(c, Exception)) or issubclass(c, _skips()):
            return None
        if c.__module__ != mod or c.__qualname__ != qual:  # an alias (a re-export): the worker names where it is defined
            return None
        return _argued(c)
    return find


_ARGUED = {}


def _argued(c):
    """A subclass of the library's class whose str() is its arguments', as a mirror's (Mirrors): the tree
    sets the attributes a library's __str__ reads (click's ClickException.message), and a message the tree chose is the
    lying-exception exploit the split beats (oracle/exploits/lying-exception). isinstance and except clauses match."""
    got = _ARGUED.get(c)
    if got is None:
        builtin = next(b for b in c.__mro__ if b.__module__ == "builtins")
        got = _ARGUED[c] = type(c.__name__, (c,), {"__module__": c.__module__, "__qualname__": c.__qualname__,
                                                   "__str__": builtin.__str__, "_oracle_name": "%s:%s" % (c.__module__, c.__qualname__)})
    return got


def builtin_exception(name):
    c = getattr(builtins, name, None)
    return c if isinstance(c, type) and issubclass(c, BaseException) else Exception


def _mirror_str(self):
    """A mirror's str(): its arguments', as BaseException's; an exception raised with no arguments has no message but its
    own __str__'s, read in the worker (blind round 20, h10: a TemplateError built its message in __str__ from its
    fields, and raises(match=) saw ''). Arguments and a different __str__ still read as the arguments (lying-exception)."""
    own = self.__dict__.get("_oracle_str")
    return own if type(own) is str and not self.args else BaseException.__str__(self)


class Mirrors:
    """Local stand-ins for the tree's exception classes, by qualified name, so that pytest.raises(calc.Err)
    and except clauses in tests match what the worker raised; their hierarchy follows the tree's."""

    def __init__(self, library=None):
        self.by_name = {}
        self.library = library  # name -> this process's own class of a library's exception, or None (oracle_libexc)

    def of(self, names, base_name):
        """names: the class and its non-builtin ancestors, nearest first; base_name: the builtin base."""
        base = builtin_exception(base_name)
        if base in (KeyboardInterrupt, GeneratorExit):
            base = Exception
        cls = None
        for n in reversed(names):
            got = self.by_name.get(n) or (self.library(n) if self.library else None)
            if got is None:
                mod, _, qual = n.rpartition(":")
                bases = (cls, base) if cls is not None and not issubclass(cls, base) else (cls or base,)
                try:
                    got = type(qual.rpartition(".")[2] or "RemoteError", bases,
                               {"__module__": mod, "__qualname__": qual, "_oracle_name": n, "__str__": _mirror_str})
                except TypeError:  # builtin bases whose layouts conflict: the nearest one wins
                    got = type(qual.rpartition(".")[2] or "RemoteError", (cls or base,),
                               {"__module__": mod, "__qualname__": qual, "_oracle_name": n, "__str__": _mirror_str})
                self.by_name[n] = got
            cls = got
        return cls
