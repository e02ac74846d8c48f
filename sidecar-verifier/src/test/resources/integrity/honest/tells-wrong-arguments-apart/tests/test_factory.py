import pytest

from calc import factory


def test_a_factory_that_needs_arguments_is_told_apart(monkeypatch):
    monkeypatch.setattr(factory, "MODE", "strict")  # a test that sets the tree's module: graded in-process

    def create_app(config):
        return config

    def broken():
        raise TypeError("inside the factory")

    assert factory.make(create_app) == "needs arguments"
    assert factory.make(lambda: "app") == "app"
    assert factory.calls_of(create_app) == 1 and factory.calls_of(create_app) == 2
    with pytest.raises(TypeError, match="inside the factory"):  # the traceback holds this test's function's frame
        factory.make(broken)
