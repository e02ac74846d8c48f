# Config files: the test-runner sections, and only they, as canonical JSON (sorted keys), or ok=false with the error.
from source_rules.config_sections import config_sections


def sections(text, rel):
    res = config_sections(text.encode(), rel)
    assert res["ok"], res
    return res["sections"]


def test_pyproject_keeps_pytest_tox_and_pytest11_entry_points_only():
    text = ("[tool.ruff]\nline-length = 1\n[tool.pytest.ini_options]\naddopts = '-q'\ntestpaths = ['tests']\n"
            "[tool.tox]\nenv_list = ['py']\n[project]\nname = 'x'\n[project.entry-points.pytest11]\nplug = 'x.plug'\n"
            "[tool.poetry.plugins.pytest11]\nother = 'y.plug'\n")
    assert sections(text, "pyproject.toml") == (
        '{"project.entry-points.pytest11": {"plug": "x.plug"}, "pytest": {"ini_options": {"addopts": "-q", "testpaths": ["tests"]}}, '
        '"tool.poetry.plugins.pytest11": {"other": "y.plug"}, "tox": {"env_list": ["py"]}}')


def test_setup_cfg_keeps_the_pytest_section_and_the_pytest11_entry_point():
    text = "[metadata]\nname = x\n[tool:pytest]\naddopts = -p no:cacheprovider\n[options.entry_points]\npytest11 =\n  a = b\n"
    assert sections(text, "pkg/setup.cfg") == '{"options.entry_points.pytest11": "\\na = b", "tool:pytest": {"addopts": "-p no:cacheprovider"}}'


def test_tox_ini_keeps_tox_and_testenv_sections_not_other_tools():
    text = "[tox]\nenvlist = py\n[testenv:lint]\ncommands = ruff\n[flake8]\nmax-line-length = 1\n"
    assert sections(text, "tox.ini") == '{"testenv:lint": {"commands": "ruff"}, "tox": {"envlist": "py"}}'


def test_order_and_other_sections_do_not_change_the_canonical_json():
    a = sections("[tool:pytest]\nb = 2\na = 1\n[flake8]\nx = 1\n", "setup.cfg")
    b = sections("[flake8]\nx = 9\n[tool:pytest]\na = 1\nb = 2\n", "setup.cfg")
    assert a == b == '{"tool:pytest": {"a": "1", "b": "2"}}'


def test_a_file_that_does_not_parse_is_not_ok_and_names_the_error():
    res = config_sections(b"[tool.pytest\n", "pyproject.toml")
    assert res == {"rel": "pyproject.toml", "ok": False, "error": res["error"]} and res["error"].startswith("TOMLDecodeError: ")
    res = config_sections(b"no section header\n", "setup.cfg")
    assert not res["ok"] and res["error"].startswith("MissingSectionHeaderError: ")
