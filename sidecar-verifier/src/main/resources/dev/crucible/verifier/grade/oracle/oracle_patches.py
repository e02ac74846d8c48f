# A test's patches of what the code under test uses from its own process. pytest's monkeypatch and unittest.mock patch
# objects here, in the trusted grading process, while the worker imports its own copy of every module: a patch of a
# library's module or class, or of the standard library's (werkzeug.serving.run_simple, time.time, builtins.input),
# never reached the code under test, which ran the real thing (pallets/flask at HEAD: app.run() started a real server in
# the worker, the call hung to its deadline, and the worker's end failed 273 later tests of an honest tree). Such a test
# is graded in-process. Patches of the tree's modules and objects have their own rules (oracle_hook.StandInModule,
# oracle_remote.Remote); what only this process holds (a test module, an object the test made) is patched as before.
import sys
import types

import oracle_conn
import oracle_hook
import oracle_remote

# what no code under test uses from its own process: the runner, the oracle, the reporter
_HERE_ONLY = ("_pytest", "pytest", "pluggy", "py", "_py", "crucible_reporter")


def _worker_has_its_own(tree, obj):
    """Whether obj, a patch's target, is a module or class of which the worker imports a copy of its own."""
    t = type(obj)
    if issubclass(t, (oracle_hook.StandInModule, oracle_remote.Remote)):
        return False
    if issubclass(t, types.ModuleType):
        name = obj.__name__
    elif issubclass(t, type):
        name = obj.__dict__.get("__module__")
    else:
        return False  # an object this process made: the test's own
    if type(name) is not str or name.startswith("oracle_") or name.split(".")[0] in _HERE_ONLY:
        return False
    module = sys.modules.get(name)
    f = getattr(module, "__file__", None) if module is not None else None
    return not (type(f) is str and tree.rel(f) is not None)  # a trusted module of the tree (its tests) lives here only


def install(oracle):
    conn, tree = oracle.conn, oracle.tree

    def check(obj, what):
        rec = conn.test
        if rec is None or rec.needs or not _worker_has_its_own(tree, obj):
            return  # outside a test (a conftest's import: as before), or graded in-process already
        name = getattr(obj, "__name__", "?")
        raise oracle_conn.NeedsInProcess("a test patches %s of %s, whose copy in the code under test's process it does not reach"
                                         % (what, name if type(name) is str else "?"))

    # pytest's monkeypatch fixture, given again by this plugin (registered after pytest's own, so its fixture wins): a
    # subclass per test, never a change to pytest's class, which the reporter watches in this process
    import pytest
    from _pytest import monkeypatch as mp

    def target_of(target, raising):
        if isinstance(target, str):  # "pkg.module.attr": the value comes as the second argument
            try:
                return mp.derive_importpath(target, raising)
            except Exception:  # noqa: BLE001 - monkeypatch itself reports a bad path
                return None, None
        return None, target

    def checked(method):  # setattr and delattr take the target the same way
        def patch(self, target, *args, **kw):
            attr, obj = target_of(target, kw.get("raising", True))
            check(obj, attr if attr is not None else (args[0] if args else "?"))
            return method(self, target, *args, **kw)
        return patch

    class OracleMonkeyPatch(mp.MonkeyPatch):
        setattr = checked(mp.MonkeyPatch.setattr)
        delattr = checked(mp.MonkeyPatch.delattr)

    plugin = types.ModuleType("crucible_oracle_patches")

    @pytest.fixture
    def monkeypatch():
        patches = OracleMonkeyPatch()
        yield patches
        patches.undo()
    plugin.monkeypatch = monkeypatch

    import unittest.mock as um
    enter = um._patch.__enter__

    def patched_enter(self):
        try:
            obj = self.getter()
        except Exception:  # noqa: BLE001 - mock reports a target it cannot import
            obj = None
        check(obj, self.attribute if isinstance(self.attribute, str) else "?")
        return enter(self)
    um._patch.__enter__ = patched_enter
    return plugin
