# dataclasses' module functions on the tree's dataclass instances (oracle_dataclasses; found on psf/black, whose
# tests/test_ipynb.py calls replace(JUPYTER_MODE, ...) at import and lost its whole collection to a TypeError): they run
# on the worker's own dataclasses module, on the tree's object; the trusted side's own dataclasses are untouched.
import dataclasses

import pytest

import oracle_dataclasses
import oracle_remote

TREE = {"mode.py": """
    from dataclasses import dataclass, field


    @dataclass
    class Mode:
        line_length: int = 88
        is_ipynb: bool = False
        features: set = field(default_factory=set)


    def make(**kw):
        return Mode(**kw)
    """}


@pytest.fixture
def world(oracle_tree):
    w = oracle_tree(TREE, "mode")
    saved = {n: getattr(dataclasses, n) for n in oracle_dataclasses.FUNCS}
    oracle_dataclasses.install(w.session, (oracle_remote.Remote, oracle_remote.ValueRef))
    yield w
    for n, f in saved.items():
        setattr(dataclasses, n, f)


def test_replace_asdict_fields_and_is_dataclass_work_on_the_trees_object(world):
    mode = world.session.call(world.mod, "make", [], {"is_ipynb": True})
    assert isinstance(mode, oracle_remote.Remote)
    assert dataclasses.is_dataclass(mode) is True
    other = dataclasses.replace(mode, line_length=10)
    assert other.line_length == 10 and other.is_ipynb is True and mode.line_length == 88
    assert dataclasses.asdict(other) == {"line_length": 10, "is_ipynb": True, "features": set()}
    assert dataclasses.astuple(mode) == (88, True, set())
    assert [f.name for f in dataclasses.fields(mode)] == ["line_length", "is_ipynb", "features"]


def test_the_trusted_sides_own_dataclasses_are_untouched(world):
    @dataclasses.dataclass
    class Local:
        x: int = 1
    assert dataclasses.replace(Local(), x=2) == Local(2) and dataclasses.asdict(Local()) == {"x": 1}
    assert dataclasses.is_dataclass(Local) and not dataclasses.is_dataclass(3)
    with pytest.raises(TypeError):
        dataclasses.replace(3)
