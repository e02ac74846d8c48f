"""Runs an environment on this machine: ``crucible run -f ENV --attempts N --port 0 --out DIR`` as a child
process, one environment API per attempt. Each attempt's address comes from the run's own progress line
(``[ 1.2s NAME#i] environment API listening at http://127.0.0.1:PORT: ...`` before setup, ``Running: environment API
on ...`` after it; attempt i's folder is OUT, or
OUT/attempt-i when N > 1); it is ready once its token file (0600) exists and /healthz answers. ``stop()``
ends the run's whole process group (the launcher is a shell script over a JVM): SIGTERM first, so the run
writes every result.json, then SIGKILL after ``grace``."""

from __future__ import annotations

import asyncio
import collections
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import json
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import httpx

from ._decode import decode
from ._errors import LaunchError
from ._models import RolloutResult

# the API listens from before setup (answering 503 until ready), announced then and again once Running
_SERVING = re.compile(r"^\[\s*[0-9.]+s ([^\]]+)\] (?:Running: environment API on|environment API listening at) "
                      r"(http://127\.0\.0\.1:[0-9]+)[ :]")


def find_crucible(explicit: str | os.PathLike[str] | None = None) -> str:
    """The ``crucible`` launcher: ``explicit``, else $CRUCIBLE_BIN, else ``crucible`` on PATH."""
    c = explicit or os.environ.get("CRUCIBLE_BIN") or shutil.which("crucible")
    if not c:
        raise LaunchError("crucible launcher not found: pass crucible=PATH (the repository's ./crucible) or set CRUCIBLE_BIN", "")
    return os.fspath(c)


@dataclass(frozen=True)
class Endpoint:
    """One attempt's environment API: its address, token file and run folder."""

    attempt: int
    url: str
    token_file: Path
    folder: Path


class LocalRun:
    """``crucible run --port`` for one environment manifest with ``attempts`` attempts (at most ``parallel`` at once)."""

    def __init__(self, environment: str | os.PathLike[str], *, attempts: int = 1, parallel: int | None = None,
                 out: str | os.PathLike[str] | None = None, crucible: str | os.PathLike[str] | None = None,
                 extra_args: list[str] | None = None, grace: float = 15.0) -> None:
        if attempts < 1:
            raise ValueError("attempts: must be at least 1")
        self.environment = Path(environment)
        self.attempts = attempts
        self.parallel = parallel or attempts
        self.out = Path(out) if out is not None else Path(tempfile.mkdtemp(prefix="crucible-sdk-"))
        self.crucible = find_crucible(crucible)
        self.extra_args = extra_args or []
        self.grace = grace
        self._proc: subprocess.Popen[bytes] | None = None
        self._tail: collections.deque[str] = collections.deque(maxlen=60)
        self._urls: dict[int, str] = {}
        self._cond = threading.Condition()
        self._reader: threading.Thread | None = None

    def folder(self, attempt: int) -> Path:
        return self.out if self.attempts == 1 else self.out / f"attempt-{attempt}"

    def start(self) -> LocalRun:
        if self._proc is not None:
            raise RuntimeError("already started")
        if not self.environment.is_file():
            raise LaunchError(f"environment manifest {self.environment}: not a file (pass DIR/environment.yaml)", "")
        cmd = [self.crucible, "run", "-f", str(self.environment), "--attempts", str(self.attempts),
               "--parallel", str(self.parallel), "--port", "0", "--out", str(self.out), *self.extra_args]
        # a session of its own: stop() signals the launcher and the JVM under it together
        self._proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                      start_new_session=True)
        self._reader = threading.Thread(target=self._read, name="crucible-run-output", daemon=True)
        self._reader.start()
        return self

    def _read(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        for raw in self._proc.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            m = _SERVING.match(line)
            with self._cond:
                self._tail.append(line)
                if m:
                    label = m.group(1)
                    i = int(label.rsplit("#", 1)[1]) if self.attempts > 1 and "#" in label else 0
                    self._urls[i] = m.group(2)
                self._cond.notify_all()
        with self._cond:
            self._cond.notify_all()

    def output(self) -> str:
        with self._cond:
            return "\n".join(self._tail)

    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def _ready(self, attempt: int, started: float, timeout: float) -> tuple[str | None, Path]:
        """The attempt's URL once announced (None before); LaunchError if the run exited or ``timeout`` passed."""
        if not 0 <= attempt < self.attempts:
            raise ValueError(f"attempt: must be in [0, {self.attempts}), got {attempt}")
        if self._proc is None:
            raise RuntimeError("start() first")
        with self._cond:
            url = self._urls.get(attempt)
        if url is None and self._proc.poll() is not None:
            if self._reader is not None:
                self._reader.join(5)  # its last lines may name the URL
            with self._cond:
                url = self._urls.get(attempt)
            if url is None:
                raise LaunchError(f"crucible run exited ({self._proc.returncode}) before attempt {attempt} served its API",
                                  self.output())
        if time.monotonic() - started > timeout:
            raise LaunchError(f"attempt {attempt}: its API was not ready within {timeout:.0f} s", self.output())
        return url, self.folder(attempt) / "api-token"

    def endpoint(self, attempt: int = 0, timeout: float = 300.0, *, setup_done: bool = True) -> Endpoint:
        """Waits until attempt ``attempt`` serves its API (token file present, /healthz answering). With
        ``setup_done=False`` it returns once the API listens, before the environment's setup ends: the clients wait
        out its 503 "setting up" answers themselves."""
        t0 = time.monotonic()
        while True:
            url, token = self._ready(attempt, t0, timeout)
            if url is not None and token.is_file() and token.stat().st_size > 0:
                if not setup_done:
                    return Endpoint(attempt, url, token, self.folder(attempt))
                try:
                    if httpx.get(url + "/healthz", timeout=5.0).status_code == 200:
                        return Endpoint(attempt, url, token, self.folder(attempt))
                except httpx.TransportError:
                    pass
            time.sleep(0.05)

    async def endpoint_async(self, attempt: int = 0, timeout: float = 300.0) -> Endpoint:
        """:meth:`endpoint` for asyncio: polls without holding a thread, so many attempts can wait at once."""
        t0 = time.monotonic()
        async with httpx.AsyncClient(timeout=5.0) as http:
            while True:
                url, token = self._ready(attempt, t0, timeout)
                if url is not None and token.is_file() and token.stat().st_size > 0:
                    try:
                        if (await http.get(url + "/healthz")).status_code == 200:
                            return Endpoint(attempt, url, token, self.folder(attempt))
                    except httpx.TransportError:
                        pass
                await asyncio.sleep(0.05)

    def result(self, attempt: int = 0) -> RolloutResult | None:
        """The attempt's result.json once written (after verify, the deadline or stop), else None."""
        f = self.folder(attempt) / "result.json"
        if not f.is_file():
            return None
        return decode(RolloutResult, json.loads(f.read_text()))

    def wait(self, timeout: float | None = None) -> int:
        if self._proc is None:
            raise RuntimeError("start() first")
        rc = self._proc.wait(timeout)
        if self._reader is not None:
            self._reader.join(5)
        return rc

    def stop(self) -> int | None:
        """Ends the run by its process group: SIGTERM (results are written), SIGKILL after ``grace`` seconds."""
        p = self._proc
        if p is None:
            return None
        if p.poll() is None:
            self._signal(signal.SIGTERM)
            try:
                p.wait(self.grace)
            except subprocess.TimeoutExpired:
                self._signal(signal.SIGKILL)
                p.wait(10)
        else:
            self._signal(signal.SIGKILL)  # the launcher is gone; a child it left in its group is not
        if self._reader is not None:
            self._reader.join(5)
        return p.returncode

    def _signal(self, sig: signal.Signals) -> None:
        assert self._proc is not None
        try:
            os.killpg(self._proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def __enter__(self) -> LocalRun:
        return self.start() if self._proc is None else self

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()
