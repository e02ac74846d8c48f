# dataclasses' module functions on the tree's objects in the trusted grading process (psf/black: tests/test_ipynb.py runs
# `replace(JUPYTER_MODE, is_ipynb=False)` at import). Here a tree object is a reference whose class is a local proxy, so
# dataclasses finds no __dataclass_fields__ and raises TypeError: black's collection stopped and its suite was lost. The
# function runs where the object lives instead: the worker's own dataclasses module, called on the tree's object with the
# test's arguments (one call, as any call of the tree's), its answer crossing as any answer does (asdict's dict of plain
# values by value, replace's new object as a reference). Nothing of the tree runs here; other arguments go to the original.
import dataclasses
import functools

FUNCS = ("replace", "asdict", "astuple", "fields", "is_dataclass")


def install(session, tree_types):
    """Wraps FUNCS in this process's dataclasses module (before any test module imports them by name). tree_types: the
    classes of the tree's objects here (references and value mirrors)."""
    held = {}  # the worker generation -> a reference to that worker's dataclasses module

    def worker_module():
        gen = session.conn.gen
        ref = held.get(gen)
        if ref is None or session.conn.proc is None:
            held.clear()
            ref = held[session.conn.gen] = session.request({"op": "imp", "name": "dataclasses"})
        return ref

    for name in FUNCS:
        orig = getattr(dataclasses, name)
        if getattr(orig, "_oracle_forwards", False):
            continue

        def forwarded(obj, /, *args, _orig=orig, _name=name, **kw):
            if isinstance(obj, tree_types):
                return session.call(worker_module(), _name, [obj, *args], kw)
            return _orig(obj, *args, **kw)
        forwarded = functools.wraps(orig)(forwarded)
        forwarded._oracle_forwards = True
        setattr(dataclasses, name, forwarded)
