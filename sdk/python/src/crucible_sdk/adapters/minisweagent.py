"""mini-swe-agent (``pip install 'crucible-sdk[minisweagent]'``): an Environment whose bash actions run as
Crucible steps, so the stock ``DefaultAgent`` works in a Crucible episode. When the agent submits
(``echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT``, mini-swe-agent's own signal) or the hack policy ends the
episode, the episode is verified and the exit message's ``extra["crucible"]`` carries Crucible's reward,
phase and findings; ``env.report`` holds the whole VerifyReport.

    env = CrucibleEnvironment(EnvClient(ep.url, token_file=ep.token_file))
    agent = DefaultAgent(model, env, **yaml.safe_load(open(default.yaml))["agent"])
    agent.run(task=env.task)        # the task is the environment's prompt, from /v1/reset
"""

from __future__ import annotations

import dataclasses
import platform
from typing import Any

from .._errors import ApiError
from .._models import Finding, StepResult, VerifyReport
from ..client import EnvClient

SUBMIT = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"


class CrucibleEnvironment:
    """mini-swe-agent's Environment protocol (``execute``, ``get_template_vars``, ``serialize``) over one episode."""

    def __init__(self, client: EnvClient, *, timeout: int | None = None, reset: bool = True) -> None:
        self.client = client
        self.timeout = timeout
        self.config: dict[str, Any] = {"url": client.base_url, "timeout": timeout}
        self.task = (client.reset().prompt or "") if reset else ""
        self.steps: list[StepResult] = []
        self.findings: list[Finding] = []
        self.report: VerifyReport | None = None

    def execute(self, action: dict[str, Any], cwd: str = "", *, timeout: int | None = None) -> dict[str, Any]:
        command = str(action.get("command", ""))
        try:
            r = self.client.bash(command, cwd=cwd or None, timeout_seconds=timeout or self.timeout)
        except ApiError as e:  # refused by the API (nothing ran): the model sees why, as a failed command
            return {"output": e.message, "returncode": -1, "exception_info": str(e)}
        self.steps.append(r)
        self.findings.extend(r.findings or [])
        output: dict[str, Any] = {
            "output": r.observation or "", "returncode": r.exitCode, "exception_info": "",
            "extra": {"crucible": {"stepIndex": r.stepIndex, "rewardFloored": r.rewardFloored,
                                   "findings": [dataclasses.asdict(f) for f in r.findings or []]}},
        }
        lines = (r.observation or "").lstrip().splitlines(keepends=True)
        submitted = bool(lines) and lines[0].strip() == SUBMIT and r.exitCode == 0
        if submitted or r.done:
            self._finish("".join(lines[1:]) if submitted else "", "Submitted" if submitted else "CrucibleTerminated")
        return output

    def _finish(self, submission: str, status: str) -> None:
        from minisweagent.exceptions import Submitted  # the framework's own end-of-run signal

        self.report = self.client.verify()
        crucible = {"reward": self.report.reward, "phase": self.report.phase, "phaseReason": self.report.phaseReason,
                    "findings": [dataclasses.asdict(f) for f in self.report.hackFindings or []]}
        raise Submitted({"role": "exit", "content": submission,
                         "extra": {"exit_status": status, "submission": submission, "crucible": crucible}})

    def get_template_vars(self, **kwargs: Any) -> dict[str, Any]:
        return {**self.config, **platform.uname()._asdict(), "task": self.task, **kwargs}

    def serialize(self) -> dict[str, Any]:
        return {"info": {"config": {"environment": self.config,
                                    "environment_type": f"{type(self).__module__}.{type(self).__name__}"},
                         "crucible": None if self.report is None else dataclasses.asdict(self.report)}}
