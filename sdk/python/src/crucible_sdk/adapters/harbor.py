"""Harbor (``pip install 'crucible-sdk[harbor]'``, harbor 0.25, Python >= 3.12): an environment backend, so that
Harbor runs its tasks in Crucible episodes, graded by Crucible's verifier and watched by its monitor.

    harbor trials start -p TASK_DIR --agent oracle \\
        --environment-import-path crucible_sdk.adapters.harbor:CrucibleEnvironment

``start`` imports the task (``crucible import harbor``: the folder the CLI writes, with the task's tests hidden
until grading) and starts ``crucible run --port`` on it; every ``exec`` is a Crucible bash step. Harbor's absolute
paths are mapped into the episode's workspace: the task's WORKDIR is the workspace, ``/logs`` and ``/solution``
are ``.harbor/logs`` and ``.harbor/solution`` in it (the same rewrite the importer applies to the task's files,
so a solution that writes ``/app/x`` writes the workspace's ``x``). The verifier phase is Crucible's: the tests
Harbor uploads to ``/tests`` are not put in the workspace (the agent never sees them; Crucible grades with its own
hidden copy), running ``/tests/test.sh`` is ``/v1/verify``, and the ``/logs/verifier`` Harbor downloads holds
``reward.txt`` with Crucible's reward and ``crucible.json`` with its whole report (phase, tests, findings).
Commands run as the sandbox's user whatever ``user`` Harbor asks for; environment variables are exported.
"""

from __future__ import annotations

import asyncio
import dataclasses
import enum
import json
import os
import re
import shlex
import shutil
from pathlib import Path, PurePosixPath
from typing import Any

from harbor.environments.base import BaseEnvironment, ExecResult
from harbor.environments.capabilities import EnvironmentCapabilities

from .._errors import ApiError
from .._models import VerifyReport
from ..client import AsyncEnvClient
from ..local import LocalRun, find_crucible

HARBOR_DIR = ".harbor"  # where /logs and /solution live in the workspace
TESTS = PurePosixPath("/tests")
VERIFIER_LOGS = PurePosixPath("/logs/verifier")


def _plain(value: object) -> object:
    """JSON for what asdict leaves: enums by their wire value."""
    return value.value if isinstance(value, enum.Enum) else str(value)


class CrucibleEnvironment(BaseEnvironment):
    """Harbor's BaseEnvironment over one Crucible episode (``crucible run --port`` on the imported task)."""

    def __init__(self, *args: Any, crucible: str | None = None, **kwargs: Any) -> None:
        self._crucible = crucible
        self._run: LocalRun | None = None
        self._client: AsyncEnvClient | None = None
        self._workdir = "/app"
        self._tests_uploaded = False
        self.report: VerifyReport | None = None
        super().__init__(*args, **kwargs)

    @staticmethod
    def type() -> str:
        return "crucible"

    @property
    def capabilities(self) -> EnvironmentCapabilities:
        return EnvironmentCapabilities()

    @property
    def task_dir(self) -> Path:
        return Path(self.environment_dir).parent

    def _validate_definition(self) -> None:
        if not (self.task_dir / "task.toml").is_file():
            raise FileNotFoundError(f"{self.task_dir / 'task.toml'}: missing; the Crucible backend imports the task folder")

    @property
    def _folder(self) -> Path:
        return Path(self.trial_paths.trial_dir) / "crucible"

    async def start(self, force_build: bool) -> None:
        imported = self._folder / "environment"
        crucible = find_crucible(self._crucible)
        proc = await asyncio.create_subprocess_exec(
            crucible, "import", "harbor", str(self.task_dir), "--out", str(imported),
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
        out, _ = await proc.communicate()
        if proc.returncode != 0:
            raise RuntimeError(f"crucible import harbor {self.task_dir} failed ({proc.returncode}): {out.decode(errors='replace')}")
        manifest = imported / "environment.yaml"
        m = re.search(r"^\s+mountPath:\s*(\S+)\s*$", manifest.read_text(), re.MULTILINE)
        self._workdir = m.group(1).strip("'\"") if m else "/app"
        self._run = LocalRun(manifest, crucible=crucible, out=self._folder / "run").start()
        ep = await self._run.endpoint_async()
        self._client = AsyncEnvClient(ep.url, token_file=ep.token_file)
        await self._client.reset()
        # Harbor's providers mount /logs/{agent,verifier,artifacts}; here they are folders of the workspace
        r = await self._client.bash(f"mkdir -p {HARBOR_DIR}/logs/agent {HARBOR_DIR}/logs/verifier {HARBOR_DIR}/logs/artifacts")
        if r.exitCode != 0:
            raise RuntimeError(f"could not make Harbor's log folders in the workspace: {r.observation}")

    async def stop(self, delete: bool) -> None:
        try:
            if self._client is not None:
                await self._client.aclose()
        finally:
            if self._run is not None:
                await asyncio.to_thread(self._run.stop)

    # --- paths --------------------------------------------------------------------------------------------------

    def workspace_path(self, path: str) -> str:
        """A container path as the episode sees it, relative to the workspace ('.' for the workspace itself)."""
        p = PurePosixPath(path)
        if not p.is_absolute():
            return path
        for root, to in ((PurePosixPath(self._workdir), PurePosixPath(".")), (PurePosixPath("/logs"), PurePosixPath(HARBOR_DIR, "logs")),
                         (PurePosixPath("/solution"), PurePosixPath(HARBOR_DIR, "solution"))):
            if p == root or root in p.parents:
                return str(to / p.relative_to(root))
        raise ValueError(f"{path}: outside the task's workdir {self._workdir}, /logs and /solution; a Crucible episode has no such path")

    def _rewrite(self, text: str) -> str:
        """Harbor's absolute paths in a command or a script, rewritten relative to the workspace."""
        for root, to in ((self._workdir, ""), ("/logs", HARBOR_DIR + "/logs"), ("/solution", HARBOR_DIR + "/solution")):
            pattern = re.compile(r"(?<![\w.$/-])" + re.escape(root) + r"(/|(?![\w.-]))")
            text = pattern.sub(lambda m: (to + "/" if to else "") if m.group(1) == "/" else (to or "."), text)
        return text

    @staticmethod
    def _under(path: str, root: PurePosixPath) -> bool:
        p = PurePosixPath(path)
        return p == root or root in p.parents

    @property
    def _verifier_logs(self) -> Path:
        return self._folder / "verifier-logs"

    def _api(self) -> AsyncEnvClient:
        if self._client is None:
            raise RuntimeError("the Crucible environment is not started")
        return self._client

    # --- commands -----------------------------------------------------------------------------------------------

    async def exec(self, command: str, cwd: str | None = None, env: dict[str, str] | None = None,
                   timeout_sec: int | None = None, user: str | int | None = None) -> ExecResult:
        if self._tests_uploaded and str(TESTS / "test.") in command:
            return await self._verify()
        if self.report is not None:  # the episode was graded: nothing more runs in it
            return ExecResult(stdout="", stderr="the Crucible episode has ended (verified)", return_code=125)
        merged = self._merge_env(env) or {}
        exports = "".join(f"export {k}={shlex.quote(v)}; " for k, v in merged.items() if re.fullmatch(r"[A-Za-z_]\w*", k))
        try:
            r = await self._api().bash(exports + self._rewrite(command),
                                       cwd=self.workspace_path(cwd) if cwd else None, timeout_seconds=timeout_sec)
        except ApiError as e:  # refused by the API (nothing ran)
            return ExecResult(stdout="", stderr=f"crucible: {e}", return_code=126)
        return ExecResult(stdout=r.observation or "", stderr="", return_code=r.exitCode)

    async def _verify(self) -> ExecResult:
        """Harbor's test script is Crucible's verify; its reward and report are what Harbor then downloads."""
        report = await self._api().verify()
        self.report = report
        logs = self._verifier_logs
        logs.mkdir(parents=True, exist_ok=True)
        (logs / "reward.txt").write_text(f"{report.reward}\n")
        (logs / "crucible.json").write_text(json.dumps(dataclasses.asdict(report), indent=2, default=_plain))
        failed = [f.detector or "?" for f in report.hackFindings or [] if f.severity != "info"]
        summary = f"crucible verify: reward={report.reward} phase={report.phase} findings={sorted(set(failed))}\n"
        return ExecResult(stdout=summary, stderr="", return_code=0)

    # --- files --------------------------------------------------------------------------------------------------

    async def upload_file(self, source_path: Path | str, target_path: str) -> None:
        if self._under(target_path, TESTS):
            self._tests_uploaded = True  # Crucible grades with its own hidden copy; the agent's workspace never gets them
            return
        try:
            content = Path(source_path).read_text(encoding="utf-8")
        except UnicodeDecodeError as e:
            raise ValueError(f"{source_path}: not UTF-8 text; the Crucible backend uploads text files only") from e
        if target_path.endswith(".sh") or target_path.endswith(".py"):
            content = self._rewrite(content)
        r = await self._api().write_file(self.workspace_path(target_path), content)
        if r.exitCode != 0:
            raise RuntimeError(f"upload of {source_path} to {target_path} failed: {r.observation}")

    async def upload_dir(self, source_dir: Path | str, target_dir: str) -> None:
        if self._under(target_dir, TESTS):
            self._tests_uploaded = True
            return
        src = Path(source_dir)
        for f in sorted(p for p in src.rglob("*") if p.is_file() and not p.is_symlink()):
            await self.upload_file(f, str(PurePosixPath(target_dir) / f.relative_to(src).as_posix()))

    async def download_file(self, source_path: str, target_path: Path | str) -> None:
        if self.report is not None and self._under(source_path, VERIFIER_LOGS):
            shutil.copyfile(self._verifier_logs / PurePosixPath(source_path).relative_to(VERIFIER_LOGS), target_path)
            return
        if self.report is not None:
            raise FileNotFoundError(f"{source_path}: the Crucible episode has ended; its files are in {self._folder / 'run'}")
        r = await self._api().read_file(self.workspace_path(source_path))
        if r.exitCode != 0 or r.truncated:
            raise FileNotFoundError(f"{source_path}: {'truncated by the API' if r.truncated else r.observation}")
        Path(target_path).parent.mkdir(parents=True, exist_ok=True)
        Path(target_path).write_text(r.observation or "")

    async def download_dir(self, source_dir: str, target_dir: Path | str) -> None:
        target = Path(target_dir)
        target.mkdir(parents=True, exist_ok=True)
        if self._under(source_dir, VERIFIER_LOGS) and self.report is not None:
            shutil.copytree(self._verifier_logs, target, dirs_exist_ok=True)
            return
        if self.report is not None:
            return  # the episode has ended: its workspace is in the run folder, nothing more to fetch through the API
        rel = self.workspace_path(source_dir)
        r = await self._api().bash(f"test -d {shlex.quote(rel)} && find {shlex.quote(rel)} -type f -size -1M -print || true")
        for name in filter(None, (r.observation or "").splitlines()):
            dest = target / os.path.relpath(name, rel)
            await self.download_file(str(PurePosixPath(source_dir) / os.path.relpath(name, rel)), dest)
