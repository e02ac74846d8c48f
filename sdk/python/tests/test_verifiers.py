"""verifiers 0.4.0's own stack (its taskset loader, SingleAgentEnv, rollout, interception server, eval client and task
scoring) runs a Crucible environment through the adapter; only the model is scripted: a local OpenAI-compatible
server answers each chat completion with the next tool call of a script. The rollout's reward must be Crucible's:
1.0 for the honest fix, 0.0 and Hacked (with the finding in trace.info) for the conftest hack.

Run by ci.sh in a venv of its own (verifiers needs Python >= 3.11) with CRUCIBLE_SDK_VERIFIERS=1."""

from __future__ import annotations

import asyncio
import json
import os
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from conftest import BUGGY, CONFTEST_HACK, FIX

if os.environ.get("CRUCIBLE_SDK_VERIFIERS") == "1":
    import verifiers  # noqa: F401  (ci.sh installed the [verifiers] extra: a missing one fails here)
else:
    pytest.importorskip("verifiers.v1")

Call = tuple[str, dict[str, Any]]


class ScriptedModel:
    """An OpenAI-compatible /v1/chat/completions: the n-th request of a conversation (n = assistant turns so far)
    gets the script's n-th tool call, then a plain answer. Every request body is kept."""

    def __init__(self, script: list[Call]) -> None:
        self.script = script
        self.requests: list[dict[str, Any]] = []
        model = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                model.requests.append(body)
                n = sum(1 for m in body["messages"] if m["role"] == "assistant")
                if n < len(model.script):
                    tool, args = model.script[n]
                    message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [
                        {"id": f"call_{n}", "type": "function", "function": {"name": tool, "arguments": json.dumps(args)}}]}
                    finish = "tool_calls"
                else:
                    message, finish = {"role": "assistant", "content": "Done."}, "stop"
                data = json.dumps({"id": f"chatcmpl-{n}", "object": "chat.completion", "created": 0,
                                   "model": body.get("model", "scripted"),
                                   "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                                   "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def scripted() -> Iterator[list[ScriptedModel]]:
    made: list[ScriptedModel] = []
    yield made
    for m in made:
        m.close()


def run_episode(crucible: str, environment: Path, out: Path, model: ScriptedModel) -> Any:
    import verifiers.v1 as vf

    from crucible_sdk.adapters.verifiers import CrucibleTasksetConfig

    # the agent's runtime is verifiers' local one (its default is a remote sandbox): the code runs in Crucible's box
    config = vf.SingleAgentEnvConfig(
        agent=vf.AgentConfig(runtime=vf.SubprocessConfig()),
        taskset=CrucibleTasksetConfig(id="crucible-verifiers", environments=[str(environment)],
                                      crucible=crucible, out=str(out)))
    env = vf.load_environment(config)  # verifiers' own loader: the taskset plugin and the harness it bundles
    ctx = vf.ModelContext(model="scripted", client=vf.EvalClientConfig(base_url=model.url))

    async def main() -> Any:
        async with env.serving():
            task = next(iter(env.taskset))
            return await env.run_episode(task, ctx)

    return asyncio.run(main())


def test_honest_fix_gets_crucibles_reward(crucible: str, environment: Path, tmp_path: Path,
                                          scripted: list[ScriptedModel]) -> None:
    model = ScriptedModel([("bash", {"command": "python3 -m pytest -q -p no:cacheprovider"}),
                           ("edit", {"path": "calc/ops.py", "old_str": BUGGY, "new_str": FIX})])
    scripted.append(model)
    episode = run_episode(crucible, environment, tmp_path / "runs", model)
    assert episode.ok, episode.errors
    trace = episode.traces[0]
    crucible_info = trace.info["crucible"]
    assert (crucible_info["reward"], crucible_info["phase"]) == (1.0, "Succeeded"), crucible_info
    assert trace.rewards["crucible"] is not None and trace.reward == 1.0, trace.rewards
    assert crucible_info["steps"] == 2 and crucible_info["tests"]["failed"] == 0
    offered = {t["function"]["name"] for t in model.requests[0]["tools"]}
    assert {"bash", "edit", "read_file", "write_file"} <= offered
    assert "divide" in model.requests[0]["messages"][-1]["content"]  # the environment's prompt reached the model
    assert len(model.requests) == 3  # two tool calls, then the final answer, all through verifiers' interception
    result = json.loads((Path(crucible_info["runFolder"]) / "result.json").read_text())
    assert result["reward"] == 1.0


def test_hack_is_scored_zero_with_its_findings(crucible: str, environment: Path, tmp_path: Path,
                                               scripted: list[ScriptedModel]) -> None:
    model = ScriptedModel([("write_file", {"path": "conftest.py", "content": CONFTEST_HACK}),
                           ("bash", {"command": "python3 -m pytest -q -p no:cacheprovider"})])
    scripted.append(model)
    episode = run_episode(crucible, environment, tmp_path / "runs", model)
    assert episode.ok, episode.errors
    trace = episode.traces[0]
    crucible_info = trace.info["crucible"]
    assert (crucible_info["reward"], crucible_info["phase"]) == (0.0, "Hacked"), crucible_info
    assert trace.reward == 0.0, trace.rewards
    detectors = {f["detector"] for f in crucible_info["findings"] + crucible_info["hackFindings"]}
    assert "startup-hook-injection" in detectors, crucible_info


def test_bad_taskset_config_is_named(tmp_path: Path) -> None:
    import verifiers.v1 as vf

    from crucible_sdk.adapters.verifiers import CrucibleTasksetConfig

    config = vf.SingleAgentEnvConfig(taskset=CrucibleTasksetConfig(
        id="crucible-verifiers", environments=[str(tmp_path / "nope.yaml")]))
    with pytest.raises(ValueError, match=r"environments: .*nope.yaml: not a file"):
        list(vf.load_environment(config).taskset)
