"""verifiers 0.4 (``pip install 'crucible-sdk[verifiers]'``, Python >= 3.11): a taskset plugin whose tasks are
Crucible environments. Each rollout is a Crucible episode (``crucible run --port``): the model's tool calls
(bash, read_file, write_file, edit, list: the tools the environment's reset lists) are Crucible steps, the
rollout's reward is Crucible's reward (``/v1/verify``), and ``trace.info["crucible"]`` holds its phase, its
per-step findings and the verify report's hack findings.

    import verifiers.v1 as vf
    env = vf.load_environment(vf.SingleAgentEnvConfig(taskset=CrucibleTasksetConfig(
        id="crucible-verifiers", environments=["examples/python-bugfix/environment.yaml"])))

The taskset ships its harness (``CrucibleHarness``, verifiers' default for a taskset that bundles one): an
in-process tool loop whose every model call goes through the rollout's interception endpoint, as verifiers'
contract for in-process harnesses asks, so the trace records each turn. The episode starts in the task's
``setup`` and is verified in its ``finalize``; ``@vf.reward crucible`` reads the verified reward.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
from pathlib import Path
from typing import Any

import verifiers.v1 as vf
from verifiers.v1.runtimes import ProgramResult, Runtime

from .._errors import ApiError
from .._models import Finding, ResetResult, VerifyReport
from ..client import AsyncEnvClient
from ..local import LocalRun

__all__ = ["CrucibleHarness", "CrucibleHarnessConfig", "CrucibleTask", "CrucibleTaskData", "CrucibleTaskset",
           "CrucibleTasksetConfig", "TOOL_SCHEMAS"]

log = logging.getLogger(__name__)


def _fn(name: str, description: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "description": description, "parameters": {
        "type": "object", "properties": properties, "required": required, "additionalProperties": False}}}


_S = {"type": "string"}
# The environment API's tools and their arguments (sidecar-verifier's EnvironmentApi), as OpenAI function schemas.
TOOL_SCHEMAS: dict[str, dict[str, Any]] = {
    "bash": _fn("bash", "Run a shell command in the workspace; returns its output and exit code.",
                {"command": _S, "cwd": {"type": "string", "description": "working directory, relative to the workspace"},
                 "timeoutSeconds": {"type": "integer"}}, ["command"]),
    "read_file": _fn("read_file", "Read a text file of the workspace.", {"path": _S}, ["path"]),
    "write_file": _fn("write_file", "Write (create or replace) a text file of the workspace.",
                      {"path": _S, "content": _S}, ["path", "content"]),
    "edit": _fn("edit", "Replace the one occurrence of old_str in a file by new_str.",
                {"path": _S, "old_str": _S, "new_str": _S}, ["path", "old_str", "new_str"]),
    "list": _fn("list", "List a folder of the workspace.", {"path": _S}, []),
}


@dataclasses.dataclass
class _Live:
    """One rollout's Crucible episode, keyed by the trace id (a trace's state must stay serialisable)."""

    run: LocalRun
    client: AsyncEnvClient
    reset: ResetResult
    findings: list[Finding] = dataclasses.field(default_factory=list)
    steps: int = 0
    done: bool = False
    report: VerifyReport | None = None

    async def close(self) -> None:
        try:
            await self.client.aclose()
        finally:
            await asyncio.to_thread(self.run.stop)


_LIVE: dict[str, _Live] = {}


class CrucibleTaskData(vf.TaskData):
    environment: str
    """The environment manifest (``DIR/environment.yaml``) this task runs."""
    crucible: str | None = None
    """The crucible launcher; default ``$CRUCIBLE_BIN``, else ``crucible`` on PATH."""
    out: str | None = None
    """Folder under which each rollout's run folder (result.json, trajectory) is made; default a temporary one."""


class CrucibleTask(vf.Task[CrucibleTaskData]):
    async def setup(self, trace: vf.Trace, runtime: Runtime) -> None:
        out = None
        if self.data.out is not None:
            out = Path(self.data.out) / trace.id
            out.mkdir(parents=True, exist_ok=False)
        run = LocalRun(self.data.environment, crucible=self.data.crucible, out=out).start()
        try:
            ep = await run.endpoint_async(timeout=1800.0)  # setup (venvs, installs) runs before the API answers
            client = AsyncEnvClient(ep.url, token_file=ep.token_file)
            reset = await client.reset()
        except BaseException:
            await asyncio.to_thread(run.stop)
            raise
        _LIVE[trace.id] = _Live(run, client, reset)
        trace.info["crucible"] = {"runFolder": str(run.folder(0)), "environment": reset.environment}

    async def finalize(self, trace: vf.Trace, runtime: Runtime) -> None:
        live = _LIVE.pop(trace.id, None)
        if live is None:
            raise vf.TaskError("no Crucible episode for this rollout (its setup did not run)")
        try:
            live.report = report = await live.client.verify()
            trace.info["crucible"] = {
                **trace.info.get("crucible", {}), "reward": report.reward, "phase": report.phase,
                "phaseReason": report.phaseReason, "flagged": report.flagged, "steps": live.steps,
                "findings": [dataclasses.asdict(f) for f in live.findings],
                "hackFindings": [dataclasses.asdict(f) for f in report.hackFindings or []],
                "tests": None if report.tests is None else {"passed": report.tests.passed, "failed": report.tests.failed,
                                                            "total": report.tests.total},
            }
        finally:
            await live.close()

    @vf.reward
    async def crucible(self, trace: vf.Trace) -> float:
        """Crucible's reward for the episode, as /v1/verify graded it (0 for a hack under the environment's policy)."""
        c = trace.info.get("crucible") or {}
        if "reward" not in c:
            raise vf.TaskError("the Crucible episode was not verified: no reward")
        return float(c["reward"])


class CrucibleTasksetConfig(vf.TasksetConfig):
    environments: list[str] = []
    """Environment manifests, one task each."""
    crucible: str | None = None
    out: str | None = None


class CrucibleTaskset(vf.Taskset[CrucibleTask, CrucibleTasksetConfig]):
    def load(self) -> list[CrucibleTask]:
        if not self.config.environments:
            raise ValueError("environments: list at least one environment manifest (DIR/environment.yaml)")
        tasks = []
        for env in self.config.environments:
            path = Path(env)
            if not path.is_file():
                raise ValueError(f"environments: {env}: not a file (an environment manifest, DIR/environment.yaml)")
            data = CrucibleTaskData(name=path.parent.name, prompt=_prompt(path), environment=str(path.resolve()),
                                    crucible=self.config.crucible, out=self.config.out)
            tasks.append(CrucibleTask(data, self.config.task))
        return tasks


def _prompt(manifest: Path) -> str:
    """spec.task.prompt of the manifest (verifiers needs a prompt before the episode's reset, which returns the same)."""
    import yaml  # a dependency of verifiers' own stack

    docs = [d for d in yaml.safe_load_all(manifest.read_text()) if isinstance(d, dict)]
    for d in docs:
        if d.get("kind") == "RLEnvironment":
            prompt = ((d.get("spec") or {}).get("task") or {}).get("prompt")
            if isinstance(prompt, str) and prompt.strip():
                return prompt
    raise ValueError(f"{manifest}: spec.task.prompt: missing (the agent's prompt)")


class CrucibleHarnessConfig(vf.HarnessConfig):
    max_tool_calls: int = 100
    """Tool calls after which the loop stops and the episode is verified as it stands."""


class CrucibleHarness(vf.Harness[CrucibleHarnessConfig]):
    """A chat loop with Crucible's tools, run in-process: each model call goes to the rollout's interception
    endpoint (so verifiers records and can intercept it), each tool call is a step of the rollout's episode."""

    APPENDS_SYSTEM_PROMPT = True
    # the model's code runs in Crucible's box, never in verifiers' runtime (no host-subprocess warning applies)
    EXECUTES_CODE = False
    NEEDS_CONTAINER = False

    async def launch(self, ctx: Any, trace: vf.Trace, runtime: Runtime, endpoint: str, secret: str,
                     mcp_urls: dict[str, str], data: vf.TaskData) -> ProgramResult:
        from openai import AsyncOpenAI

        live = _LIVE.get(trace.id)
        if live is None:
            raise vf.HarnessError("no Crucible episode for this rollout: the task is not a CrucibleTask")
        system, prompt = self.resolve_prompt(data)
        messages: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
        if isinstance(prompt, str):
            messages.append({"role": "user", "content": prompt})
        else:
            raise vf.HarnessError("CrucibleHarness takes a text prompt")
        tools = [TOOL_SCHEMAS[t] for t in (live.reset.tools or list(TOOL_SCHEMAS)) if t in TOOL_SCHEMAS]
        model = AsyncOpenAI(base_url=endpoint, api_key=secret, max_retries=0)
        calls = 0
        try:
            while not live.done and calls < self.config.max_tool_calls:
                reply = await model.chat.completions.create(model=ctx.model, messages=messages, tools=tools)  # type: ignore[arg-type, unused-ignore]
                msg = reply.choices[0].message
                messages.append(msg.model_dump(exclude_none=True))
                if not msg.tool_calls:
                    break  # the model answered without a tool: it is done
                for call in msg.tool_calls:
                    calls += 1
                    fn = getattr(call, "function", None)  # a custom (non-function) tool call has none
                    answer = (await self._step(live, fn.name, fn.arguments) if fn is not None
                              else f"error: only function tools are served, not {call.type}")
                    messages.append({"role": "tool", "tool_call_id": call.id, "content": answer})
                    if live.done:
                        break  # the hack policy ended the episode: the model gets no further turn
        finally:
            await model.close()
        return ProgramResult(exit_code=0, stdout=f"{calls} tool call(s), {live.steps} step(s)", stderr="")

    async def _step(self, live: _Live, tool: str, arguments: str | None) -> str:
        if tool not in TOOL_SCHEMAS:
            return f"error: no tool {tool!r}; the tools are {', '.join(TOOL_SCHEMAS)}"
        try:
            args = json.loads(arguments or "{}")
        except json.JSONDecodeError as e:
            return f"error: the arguments are not JSON: {e}"
        if not isinstance(args, dict):
            return "error: the arguments must be a JSON object"
        try:
            r = await live.client.step(tool, args)
        except ApiError as e:  # refused (400: nothing ran, no step used): the model sees why
            return f"error: {e.message}"
        live.steps += 1
        live.findings.extend(r.findings or [])
        live.done = live.done or r.done
        return f"{r.observation or ''}\n[exit code {r.exitCode}]" if tool == "bash" else (r.observation or "")

    async def cleanup(self, trace: vf.Trace, runtime: Runtime) -> None:
        live = _LIVE.pop(trace.id, None)  # a rollout that failed before finalize: stop its run
        if live is not None:
            await live.close()
