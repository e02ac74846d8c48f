"""Java and Python cannot drift: the schema is regenerated from the Java records (through the CLI jar) and the
dataclasses from the schema, and both must equal what is committed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from crucible_sdk import DecodeError, StepResult, decode
from conftest import REPO

TOOLS = Path(__file__).resolve().parents[1] / "tools"
JAR = REPO / "cli" / "target" / "crucible-cli.jar"


def test_committed_types_match_the_java_records() -> None:
    if not JAR.is_file():
        pytest.fail(f"{JAR} is missing: build the CLI (./mvnw -pl cli -am package) before the SDK's tests")
    r = subprocess.run([sys.executable, str(TOOLS / "regenerate.py"), "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_a_changed_record_changes_the_generated_types() -> None:
    sys.path.insert(0, str(TOOLS))
    import regenerate

    schema = json.loads(regenerate.SCHEMA.read_text())
    schema["$defs"]["StepResult"]["properties"]["newField"] = {"type": "string"}
    models = regenerate.models_text(json.dumps(schema))
    assert "newField: str | None = None" in models
    assert regenerate.diff(regenerate.MODELS, models), "the check would not see the drift"


def test_strict_decoding_refuses_unknown_and_missing_fields() -> None:
    ok = {"stepIndex": 0, "observation": "", "exitCode": 0, "truncated": False, "elapsedMs": 1, "findings": [],
          "done": False, "rewardFloored": False}
    assert decode(StepResult, ok, strict=True).stepIndex == 0
    assert decode(StepResult, {**ok, "later": 1}, strict=False).exitCode == 0
    with pytest.raises(DecodeError, match="unknown field"):
        decode(StepResult, {**ok, "later": 1}, strict=True)
    with pytest.raises(DecodeError, match="stepIndex"):
        decode(StepResult, {k: v for k, v in ok.items() if k != "stepIndex"})
    with pytest.raises(DecodeError, match=r"StepResult.findings\[0\].step: expected int"):
        decode(StepResult, {**ok, "findings": [{"step": "x"}]})
