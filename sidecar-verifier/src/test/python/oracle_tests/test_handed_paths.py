# An open outside the tree of a path a call of the trusted side handed over (oracle_audit_calls._handed; found on psf/black,
# which opens the tests/data/*.toml a test passes it, and pallets/flask, which serves the static folder under the root_path
# a test gave its app) is the test's own data: an `outside` event marked handed, which OracleAttempts makes info. A path
# no call named stays an attempt, and so does one under a folder that holds the tree itself (a test handing over /tmp).
import os

TREE = {"calc.py": """
    import os


    def read(path):
        with open(path) as f:
            return f.read()


    def read_in(folder, name):
        return read(os.path.join(folder, name))


    def unasked(path):
        return read(os.path.join(os.path.dirname(os.path.dirname(os.getcwd())), path))


    def beside(*names):  # a path the tree builds itself, from names without a '/': no call names it
        return read(os.path.join(os.path.dirname(os.getcwd()), *names))


    def walk(folder):
        return sorted(os.listdir(folder))


    def main(args):  # a CLI's options, as black's tests pass them: --config=PATH
        return [read(a.partition("=")[2]) for a in args if a.startswith("--config=")]


    def project_root(src):  # black's find_project_root: up from a source to the folder holding pyproject.toml
        d = os.path.dirname(src)
        while d != "/" and not os.path.exists(os.path.join(d, "pyproject.toml")):
            d = os.path.dirname(d)
        return read(os.path.join(d, "pyproject.toml"))
    """}


def outside(w):
    return [d for k, d in ((a["kind"], a["detail"]) for a in w.conn.attempts.items) if k == "outside"]


def test_handed_paths_are_marked_and_unnamed_ones_are_attempts(oracle_tree, tmp_path):
    grading = tmp_path.parent / (tmp_path.name + "-grading")  # where the grading tree lies beside the worker's copy
    data = grading / "tests" / "data"
    (data / "sub").mkdir(parents=True)
    (data / "empty.toml").write_text("")
    (data / "sub" / "inner.txt").write_text("in")
    (grading / "other").mkdir()
    (grading / "other" / "secret.txt").write_text("s")
    w = oracle_tree(TREE, "calc")
    call = lambda name, *a: w.session.call(w.mod, name, list(a), {})  # noqa: E731
    assert call("read", str(data / "empty.toml")) == ""
    assert call("read_in", str(data / "sub"), "inner.txt") == "in"
    assert call("walk", str(data)) == ["empty.toml", "sub"]
    rel = os.path.relpath(str(grading), str(tmp_path.parent.parent))
    assert call("unasked", os.path.join(rel, "other", "secret.txt")) == "s"
    assert call("walk", str(tmp_path.parent))  # a folder that holds the tree handed over: it names nothing below it
    assert call("beside", grading.name, "other", "secret.txt") == "s"
    found = outside(w)
    handed = [d for d in found if d.startswith("a path the test handed over: ")]
    assert any("empty.toml" in d for d in handed) and any("inner.txt" in d for d in handed), found
    assert any(d.startswith("a path the test handed over: listing") for d in handed), found
    assert [d for d in found if "secret.txt" in d and not d.startswith("a path the test handed over: ")], found
    assert [d for d in found if "secret.txt" in d] and not [d for d in handed if "secret.txt" in d], found


def test_an_option_holding_a_path_and_a_project_root_above_a_handed_path_are_handed(oracle_tree, tmp_path):
    grading = tmp_path.parent / (tmp_path.name + "-grading")
    data = grading / "tests" / "data"
    data.mkdir(parents=True)
    (data / "empty.toml").write_text("e")
    (grading / "pyproject.toml").write_text("[tool]")
    (grading / "tests" / "expected.txt").write_text("x")  # directly above a handed path, but the tree has no such file
    (tmp_path.parent / (tmp_path.name + "-results.json")).write_text("{}")
    w = oracle_tree(dict(TREE, **{"pyproject.toml": "[tool]"}), "calc")
    call = lambda name, *a: w.session.call(w.mod, name, list(a), {})  # noqa: E731
    assert call("main", ["--verbose", "--config=" + str(data / "empty.toml")]) == ["e"]
    assert call("project_root", str(data / "empty.toml")) == "[tool]"
    # beside the tree, in the folder that holds it: no handed path names it, whatever was handed above
    assert call("beside", tmp_path.name + "-results.json") == "{}"
    assert call("beside", grading.name, "tests", "expected.txt") == "x"
    found = outside(w)
    handed = [d for d in found if d.startswith("a path the test handed over: ")]
    assert any("empty.toml" in d for d in handed) and any("pyproject.toml" in d for d in handed), found
    assert [d for d in found if "-results.json" in d and not d.startswith("a path the test handed over: ")], found
    assert [d for d in found if "expected.txt" in d] and not [d for d in handed if "expected.txt" in d], found
