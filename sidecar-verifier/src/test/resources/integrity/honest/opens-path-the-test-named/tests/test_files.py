# A test module that hands the code under test its own file (click's test_file_prompt_default_format, flask's
# config.from_pyfile(__file__)).
import pathlib

from calc import files


def test_default_is_the_tests_own_file(monkeypatch):
    monkeypatch.setattr(files, "ENCODING", "utf-8")  # a test that sets the tree's module: graded in-process
    opt = files.Option(default=__file__)
    assert opt.first_line().startswith("# A test module")


def test_path_held_in_a_local(monkeypatch):
    monkeypatch.setattr(files, "ENCODING", "utf-8")
    me = pathlib.Path(__file__)
    assert files.first_line_of(me).startswith("# A test module")
