"""Regenerates the SDK's types from the Java records, or with --check says whether they drifted (exit 1).

1. ``SchemaGen.java`` (beside this file) prints the JSON Schema of the API's answers and result.json, read
   through Jackson from the records themselves; it runs on the CLI's shaded jar (``cli/target/crucible-cli.jar``).
2. datamodel-code-generator turns that schema into ``src/crucible_sdk/_models.py`` (dataclasses).

    python sdk/python/tools/regenerate.py            # write both files
    python sdk/python/tools/regenerate.py --check    # CI: fail if either differs from what is committed
"""

from __future__ import annotations

import argparse
import difflib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SDK = Path(__file__).resolve().parent.parent
REPO = SDK.parent.parent
SCHEMA = SDK / "schema" / "environment-api.schema.json"
MODELS = SDK / "src" / "crucible_sdk" / "_models.py"
CODEGEN_ARGS = [
    "--input-file-type", "jsonschema", "--output-model-type", "dataclasses.dataclass",
    "--target-python-version", "3.10", "--use-standard-collections", "--use-union-operator",
    "--frozen-dataclasses", "--keyword-only", "--disable-timestamp", "--formatters", "builtin",
]


def schema_text(jar: Path) -> str:
    if not jar.is_file():
        sys.exit(f"regenerate: {jar} is missing; build it first (./mvnw -pl cli -am package -DskipTests)")
    java = shutil.which("java") or sys.exit("regenerate: java is not on PATH")
    out = subprocess.run([java, "-cp", str(jar), str(SDK / "tools" / "SchemaGen.java")],
                         check=True, capture_output=True, text=True)
    return out.stdout


def models_text(schema: str) -> str:
    codegen = shutil.which("datamodel-codegen", path=os.path.dirname(sys.executable)) or shutil.which("datamodel-codegen")
    if codegen is None:
        sys.exit("regenerate: datamodel-codegen is not installed (pip install -r sdk/python/requirements-dev.txt)")
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / SCHEMA.name
        src.write_text(schema)
        dst = Path(d) / "_models.py"
        subprocess.run([codegen, "--input", str(src), "--output", str(dst), *CODEGEN_ARGS], check=True, cwd=d)
        return dst.read_text()


def diff(path: Path, want: str) -> list[str]:
    have = path.read_text() if path.exists() else ""
    return list(difflib.unified_diff(have.splitlines(), want.splitlines(), f"{path} (committed)", f"{path} (from Java)", lineterm=""))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare with the committed files; exit 1 on drift")
    ap.add_argument("--jar", type=Path, default=REPO / "cli" / "target" / "crucible-cli.jar")
    a = ap.parse_args()
    schema = schema_text(a.jar)
    models = models_text(schema)
    if a.check:
        drift = diff(SCHEMA, schema) + diff(MODELS, models)
        if drift:
            print("\n".join(drift[:200]))
            print("the Java records and the SDK's types drifted: run python sdk/python/tools/regenerate.py and commit", file=sys.stderr)
            return 1
        print("regenerate: schema and models match the Java records")
        return 0
    SCHEMA.write_text(schema)
    MODELS.write_text(models)
    print(f"regenerate: wrote {SCHEMA.relative_to(REPO)} and {MODELS.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
