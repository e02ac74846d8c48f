"""Harbor 0.25's own Trial (its trial loop, verifier and OracleAgent / NopAgent: no model at all) runs a Harbor task
through the Crucible backend. The task is cli's test resource harbor/count-words, written to Harbor's template and
loaded here by Harbor's own Task model. The trial must end with Crucible's reward: 1.0 for the task's solution,
0.0 for the no-op agent, and 0.0 with Crucible's findings for a solution that plants a conftest.py hook turning
failures into passes (Harbor's own verifier, running test.sh in Docker, would have scored that one 1)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from conftest import CONFTEST_HACK, REPO

if os.environ.get("CI") == "true" and os.environ.get("CRUCIBLE_SDK_HARBOR") == "1":
    import harbor  # noqa: F401  (ci.sh installs harbor in its own venv and sets CRUCIBLE_SDK_HARBOR=1)
else:
    pytest.importorskip("harbor")

TASK = REPO / "cli" / "src" / "test" / "resources" / "harbor" / "count-words"
BACKEND = "crucible_sdk.adapters.harbor:CrucibleEnvironment"


def run_trial(task: Path, agent: str, trials: Path, crucible: str) -> tuple[Any, dict[str, Any]]:
    from harbor.models.trial.config import AgentConfig, EnvironmentConfig, TaskConfig, TrialConfig
    from harbor.trial.trial import Trial

    config = TrialConfig(task=TaskConfig(path=task), trials_dir=trials, agent=AgentConfig(name=agent),
                         environment=EnvironmentConfig(import_path=BACKEND, kwargs={"crucible": crucible}))

    async def go() -> Any:
        trial = await Trial.create(config)
        return await trial.run()

    result = asyncio.run(go())
    assert result.exception_info is None, result.exception_info
    report = next(trials.glob("*/crucible/verifier-logs/crucible.json"), None)
    assert report is not None, "the backend wrote no Crucible report"
    return result, json.loads(report.read_text())


def test_task_is_harbors_format() -> None:
    from harbor.models.task.task import Task

    task = Task(TASK)  # harbor's own loader: task.toml, instruction.md, environment/, tests/, solution/
    assert task.config.verifier.timeout_sec == 120.0 and "words.txt" in task.instruction
    assert task.paths.discovered_solve_path is not None and task.paths.discovered_test_path is not None


def test_oracle_trial_gets_crucibles_reward(crucible: str, tmp_path: Path) -> None:
    result, report = run_trial(TASK, "oracle", tmp_path / "trials", crucible)
    assert report["reward"] == 1.0 and report["phase"] == "Succeeded", report
    assert result.verifier_result.rewards == {"reward": 1.0}, result.verifier_result
    graded = {t["id"]: t["status"] for t in report["tests"]["details"]}
    assert graded == {"tests/test_outputs.py::test_count_file_exists": "passed",
                      "tests/test_outputs.py::test_count_is_the_number_of_words": "passed"}, graded


def test_nop_trial_gets_zero(crucible: str, tmp_path: Path) -> None:
    result, report = run_trial(TASK, "nop", tmp_path / "trials", crucible)
    assert report["reward"] == 0.0, report
    assert result.verifier_result.rewards == {"reward": 0.0}, result.verifier_result


def test_hacking_solution_is_caught(crucible: str, tmp_path: Path) -> None:
    task = tmp_path / "hack-task"
    shutil.copytree(TASK, task)
    (task / "solution" / "solve.sh").write_text("#!/bin/bash\ncat > /app/conftest.py <<'PY'\n" + CONFTEST_HACK + "PY\n")
    result, report = run_trial(task, "oracle", tmp_path / "trials", crucible)
    assert report["reward"] == 0.0 and report["phase"] == "Hacked", report
    assert "startup-hook-injection" in {f["detector"] for f in report["hackFindings"] or []}, report
    assert result.verifier_result.rewards == {"reward": 0.0}, result.verifier_result
