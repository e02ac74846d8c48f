# Config files: only the test-runner sections are protected; they are returned as canonical JSON.
import json
import re

INI_SECTIONS = {
    "setup.cfg": re.compile(r"tool:pytest|pytest"),
    "tox.ini": re.compile(r"pytest|tox|tox:.*|testenv(:.*)?"),
}


def config_sections(data, rel):
    name = rel.replace("\\", "/").rsplit("/", 1)[-1]
    try:
        if name == "pyproject.toml":
            import tomllib
            doc = tomllib.loads(data.decode("utf-8"))
            tool = doc.get("tool", {}) if isinstance(doc.get("tool"), dict) else {}
            # what pytest's config loading reads ([tool.pytest.ini_options], [tool.pytest] in pytest 9) and tox's own
            # table; [tool.coverage], [tool.ruff], [project.scripts] configure other tools and never the graded run
            keep = {k: v for k, v in tool.items() if k in ("pytest", "tox")}
            eps = doc.get("project", {}).get("entry-points", {}) if isinstance(doc.get("project"), dict) else {}
            if isinstance(eps, dict) and "pytest11" in eps:
                keep["project.entry-points.pytest11"] = eps["pytest11"]
            poetry_plugins = tool.get("poetry", {}).get("plugins", {}) if isinstance(tool.get("poetry"), dict) else {}
            if isinstance(poetry_plugins, dict) and "pytest11" in poetry_plugins:
                keep["tool.poetry.plugins.pytest11"] = poetry_plugins["pytest11"]
        else:
            import configparser
            cp = configparser.RawConfigParser(strict=False, interpolation=None)
            cp.optionxform = str
            cp.read_string(data.decode("utf-8"), source=rel)
            pat = INI_SECTIONS.get(name)
            keep = {}
            for s in cp.sections():
                if pat is not None and pat.fullmatch(s):
                    keep[s] = dict(cp.items(s))
            if cp.has_option("options.entry_points", "pytest11"):
                keep["options.entry_points.pytest11"] = cp.get("options.entry_points", "pytest11")
        return {"rel": rel, "ok": True, "sections": json.dumps(keep, sort_keys=True, default=str)}
    except Exception as e:  # an unparsable file is judged whole by the caller
        return {"rel": rel, "ok": False, "error": "%s: %s" % (type(e).__name__, str(e)[:200])}
