from calc import loader

SECRET_KEY = "config"


def test_from_pyfile_of_the_test_module_itself(monkeypatch):
    monkeypatch.setattr(loader, "MODE", "strict")  # a test that sets the tree's module: graded in-process
    assert loader.from_pyfile(__file__)["SECRET_KEY"] == "config"


def test_an_app_beside_the_tests_is_located_by_name(monkeypatch):
    monkeypatch.setattr(loader, "MODE", "strict")
    assert loader.locate("helper_app").NAME == "helper"


def test_from_object_of_the_test_module_by_name(monkeypatch):
    monkeypatch.setattr(loader, "MODE", "strict")
    assert loader.from_object(__name__)["SECRET_KEY"] == "config"
