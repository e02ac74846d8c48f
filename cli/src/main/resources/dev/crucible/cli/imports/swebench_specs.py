"""Prints, as one JSON object, the swebench package's install specification for one repository and version.

Run by `crucible import swebench` at import time: python3 swebench_specs.py OWNER/NAME VERSION
Output: {"swebench": VERSION_OR_NULL, "spec": OBJECT_OR_NULL, "reqsPaths": [...], "reason": TEXT}

Only swebench.harness.constants is executed: the package's own __init__ imports its Docker and dataset tooling
(docker, datasets, ...), which a `pip install --no-deps swebench` lacks and the specifications do not need, so the
two parent packages are entered as bare modules over their folders instead.
"""

import importlib
import importlib.metadata
import importlib.util
import json
import sys
import types


def main(repo, version):
    out = {"swebench": None, "spec": None, "reqsPaths": [], "reason": ""}
    found = importlib.util.find_spec("swebench")  # a top-level find runs nothing of the package
    if found is None or not found.submodule_search_locations:
        out["reason"] = "the swebench package is not importable by " + sys.executable
        return out
    try:
        out["swebench"] = importlib.metadata.version("swebench")
    except importlib.metadata.PackageNotFoundError:
        out["swebench"] = "unknown version"
    root = list(found.submodule_search_locations)[0]
    for name, path in (("swebench", root), ("swebench.harness", root + "/harness")):
        module = types.ModuleType(name)
        module.__path__ = [path]
        sys.modules[name] = module
    try:
        constants = importlib.import_module("swebench.harness.constants")
    except Exception as e:  # a release laid out otherwise: say why, the import falls back to derive
        out["reason"] = "swebench.harness.constants does not load: %s: %s" % (type(e).__name__, e)
        return out
    specs = getattr(constants, "MAP_REPO_VERSION_TO_SPECS", None)
    if not isinstance(specs, dict):
        out["reason"] = "swebench %s has no MAP_REPO_VERSION_TO_SPECS (5.x dropped the per-repository specifications)" % out["swebench"]
        return out
    if repo not in specs:
        out["reason"] = "swebench %s has no specification for %s" % (out["swebench"], repo)
        return out
    if version not in specs[repo]:
        known = ", ".join(sorted(specs[repo]))
        out["reason"] = "swebench %s has no specification for %s version %s (it has %s)" % (out["swebench"], repo, version, known)
        return out
    out["spec"] = specs[repo][version]
    reqs = getattr(constants, "MAP_REPO_TO_REQS_PATHS", {})
    out["reqsPaths"] = list(reqs.get(repo, [])) if isinstance(reqs, dict) else []
    return out


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: swebench_specs.py OWNER/NAME VERSION")
    print(json.dumps(main(sys.argv[1], sys.argv[2]), default=str))
