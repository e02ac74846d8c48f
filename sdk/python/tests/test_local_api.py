"""The blocking client against real `crucible run --port` processes on examples/python-bugfix."""

from __future__ import annotations

import os
import shutil
import stat
import time
from pathlib import Path

import httpx
import pytest

from crucible_sdk import BadRequest, Conflict, CrucibleError, EnvClient, LocalRun, Unauthorized
from conftest import BUGGY, CONFTEST_HACK, ENV, FIX


def test_honest_fix_scores_one(crucible: str, environment: Path, tmp_path: Path) -> None:
    with LocalRun(environment, crucible=crucible, out=tmp_path / "run") as run:
        ep = run.endpoint()
        assert stat.S_IMODE(ep.token_file.stat().st_mode) == 0o600
        with EnvClient(ep.url, token_file=ep.token_file) as c:
            reset = c.reset()
            assert "divide" in (reset.prompt or "") and "edit" in (reset.tools or [])
            before = c.bash("python3 -m pytest -q -p no:cacheprovider")
            assert before.exitCode != 0 and "failed" in (before.observation or "")
            edited = c.edit("calc/ops.py", BUGGY, FIX)
            assert edited.exitCode == 0, edited.observation
            assert (c.read_file("calc/ops.py").observation or "").count("ValueError") == 1
            # the framework's own side, merged into the rollout's timeline; a malformed document changes nothing
            steps = [{"step_id": 1, "source": "user", "message": "fix divide"},
                     {"step_id": 2, "source": "agent", "message": "edited calc/ops.py: the-agents-own-words"}]
            atif = {"schema_version": "ATIF-v1.8", "agent": {"name": "scripted"}, "steps": steps}
            assert c.hand_in_trajectory(atif).merged == 2
            with pytest.raises(BadRequest, match=r"steps\[0\]\.source"):
                c.hand_in_trajectory({**atif, "steps": [{**steps[0], "source": "robot"}]})
            report = c.verify()
        assert (report.phase, report.phaseReason, report.reward, report.verdict) == ("Succeeded", "Verified", 1.0, "pass")
        assert report.tests is not None and report.tests.passed == report.tests.total == 4
        assert run.wait(60) == 0
        result = run.result()
        assert result is not None and result.reward == 1.0 and result.phase is not None and result.phase.value == "Succeeded"
    exported = [p.read_text() for p in (tmp_path / "run").glob("**/trajectory.atif.json")]
    assert len(exported) == 1 and exported[0].count("the-agents-own-words") == 1, "the handed-in step is in the exported trajectory once"


def test_conftest_hack_is_flagged_in_its_step(crucible: str, environment: Path, tmp_path: Path) -> None:
    with LocalRun(environment, crucible=crucible, out=tmp_path / "run") as run:
        ep = run.endpoint()
        with EnvClient(ep.url, token_file=ep.token_file) as c:
            c.reset()
            hack = c.write_file("conftest.py", CONFTEST_HACK)
            counted = [f for f in hack.findings or [] if f.severity != "info"]
            assert counted, f"no counted finding in the step that wrote conftest.py: {hack.findings}"
            assert all(f.step == hack.stepIndex for f in hack.findings or [])
            assert hack.rewardFloored
            seen = c.findings().findings
            assert {f.detector for f in counted} <= {f.detector for f in seen}
            # the hack makes pytest pass in the workspace, yet the reward is floored
            assert c.bash("python3 -m pytest -q -p no:cacheprovider").exitCode == 0
            report = c.verify()
        assert (report.phase, report.phaseReason, report.reward) == ("Hacked", "RewardHackDetected", 0.0)
        assert report.flagged and report.hackFindings
        run.wait(60)
        result = run.result()
        assert result is not None and result.reward == 0.0 and result.phase is not None and result.phase.value == "Hacked"


def test_errors_are_typed_and_carry_the_servers_message(crucible: str, environment: Path, tmp_path: Path) -> None:
    with LocalRun(environment, crucible=crucible, out=tmp_path / "run") as run:
        ep = run.endpoint()
        with EnvClient(ep.url, token="not-the-token") as wrong:
            with pytest.raises(Unauthorized) as e401:
                wrong.reset()
            assert e401.value.status == 401 and "bearer token" in e401.value.message
        with EnvClient(ep.url, token_file=ep.token_file) as c:
            with pytest.raises(Conflict) as e409:
                c.bash("true")
            assert e409.value.status == 409 and e409.value.message
            c.reset()
            with pytest.raises(BadRequest) as e400:
                c.step("nope")
            assert "'nope' is not one of this environment's tools" in e400.value.message
            with pytest.raises(BadRequest) as missing:
                c.step("read_file")
            assert "args.path" in missing.value.message
            assert (c.bash("pwd", cwd="calc").observation or "").strip().endswith("/calc")
            assert c.bash("true").stepIndex == 1, "a refused step used up a step index"
            c.verify()
        run.wait(60)


def test_token_file_readable_by_others_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "api-token"
    f.write_text("secret\n")
    os.chmod(f, 0o644)
    with pytest.raises(CrucibleError, match="lets others read it"):
        EnvClient("http://127.0.0.1:1", token_file=f)
    os.chmod(f, 0o600)
    EnvClient("http://127.0.0.1:1", token_file=f).close()


def test_token_before_setup_and_findings_after_verify(crucible: str, tmp_path: Path) -> None:
    """The token file is there while setup runs (the client waits out 503 "setting up" on its own); after verify the
    findings still answer until the client ends the episode's API (which it does on close)."""
    env = tmp_path / "env"
    shutil.copytree(ENV.parent, env)
    manifest = env / "environment.yaml"
    manifest.write_text(manifest.read_text().replace("python3 -m pip --version >/dev/null 2>&1 || true", "sleep 8"))
    with LocalRun(manifest, crucible=crucible, out=tmp_path / "run") as run:
        ep = run.endpoint(setup_done=False)
        assert httpx.get(ep.url + "/healthz").status_code == 503, "setup (sleep 8) should still be running"
        with EnvClient(ep.url, token_file=ep.token_file) as c:
            c.reset()  # answered once setup is done
            hack = c.write_file("calc/conftest.py", CONFTEST_HACK)
            report = c.verify()
            assert report.phase is not None
            assert c.findings().findings == report.hackFindings, "findings after verify"
            assert run.running()
            with pytest.raises(Conflict):
                c.bash("true")
            assert hack.findings
        t0 = time.monotonic()
        assert run.wait(30) == 0
        assert time.monotonic() - t0 < 8, "closing the client ends the API at once, not after its grace period"
