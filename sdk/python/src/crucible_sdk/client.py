"""Clients of one episode's environment API (``crucible run --port`` locally, the sidecar in a pod):
``EnvClient`` (blocking) and ``AsyncEnvClient`` (asyncio), with the same methods."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any, TypeVar

import httpx

from . import _http
from ._errors import CrucibleError
from ._models import FindingsResponse, Health, ResetResult, StepResult, VerifyReport

T = TypeVar("T")


@dataclass(frozen=True, kw_only=True)
class Closing:
    """The answer of POST /v1/close."""

    closing: bool


@dataclass(frozen=True, kw_only=True)
class HandedIn:
    """The answer of POST /v1/trajectory: how many of the document's steps the trajectory stored (fewer than sent past
    its cap, or none once the run has ended)."""

    merged: int


DEFAULT_TIMEOUT = httpx.Timeout(connect=10.0, read=None, write=30.0, pool=None)  # a step may run as long as its own timeout


def _token(token: str | None, token_file: str | os.PathLike[str] | None) -> str:
    if token is not None:
        return token
    if token_file is None:
        raise ValueError("token or token_file (OUT/api-token) is required")
    return _http.read_token(token_file)


class EnvClient:
    """One episode's environment API. ``strict``: refuse answer fields the generated types do not know."""

    def __init__(self, base_url: str, *, token: str | None = None, token_file: str | os.PathLike[str] | None = None,
                 timeout: httpx.Timeout | float | None = None, strict: bool | None = None,
                 http: httpx.Client | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self._strict = strict
        self._own = http is None
        self._http = http or httpx.Client(timeout=timeout or DEFAULT_TIMEOUT)
        self._headers = _http.headers(_token(token, token_file))
        self._verified = self._ended = False

    def __enter__(self) -> EnvClient:
        return self

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """Closes the client; after :meth:`verify` it first tells the server it is done (:meth:`end`)."""
        try:
            if self._verified and not self._ended:
                self.end()
        except CrucibleError:
            pass  # the server already went: nothing left to end
        finally:
            if self._own:
                self._http.close()

    def end(self) -> None:
        """POST /v1/close: after verify, the API stops answering now instead of at its grace period's end."""
        self._call(Closing, "POST", "/v1/close")
        self._ended = True

    def _call(self, cls: type[T], method: str, path: str, body: Any = None) -> T:
        attempt = 0
        waited = 0.0
        while True:
            try:
                r = self._http.request(method, self.base_url + path, headers=self._headers, json=body)
                delay = _http.setting_up(r, waited)
                if delay is not None:
                    time.sleep(delay)
                    waited += delay
                    continue
                return _http.answer(cls, r, self._strict)
            except httpx.TransportError as e:
                attempt += 1
                if not _http.may_retry(method, e, attempt):
                    raise _http.transport_error(method, path, e) from e
                time.sleep(_http.BACKOFF_S * attempt)

    def health(self) -> Health:
        return self._call(Health, "GET", "/healthz")

    def reset(self) -> ResetResult:
        return self._call(ResetResult, "POST", "/v1/reset")

    def step(self, tool: str, args: Mapping[str, Any] | None = None, **kwargs: Any) -> StepResult:
        return self._call(StepResult, "POST", "/v1/step", _http.step_body(tool, args, kwargs))

    def bash(self, command: str, *, cwd: str | None = None, timeout_seconds: int | None = None) -> StepResult:
        return self.step("bash", command=command, cwd=cwd, timeoutSeconds=timeout_seconds)

    def read_file(self, path: str) -> StepResult:
        return self.step("read_file", path=path)

    def write_file(self, path: str, content: str) -> StepResult:
        return self.step("write_file", path=path, content=content)

    def edit(self, path: str, old_str: str, new_str: str) -> StepResult:
        return self.step("edit", path=path, old_str=old_str, new_str=new_str)

    def list(self, path: str = ".") -> StepResult:
        return self.step("list", path=path)

    def verify(self) -> VerifyReport:
        report = self._call(VerifyReport, "POST", "/v1/verify")
        self._verified = True
        return report

    def findings(self) -> FindingsResponse:
        return self._call(FindingsResponse, "GET", "/v1/findings")

    def hand_in_trajectory(self, atif: Mapping[str, Any]) -> HandedIn:
        """POST /v1/trajectory: the framework's own side (an ATIF document: messages, reasoning, tool calls) merged into
        the rollout's timeline as agent.step events; a malformed document is refused whole (BadRequest naming the field)."""
        return self._call(HandedIn, "POST", "/v1/trajectory", dict(atif))


class AsyncEnvClient:
    """The asyncio twin of :class:`EnvClient`."""

    def __init__(self, base_url: str, *, token: str | None = None, token_file: str | os.PathLike[str] | None = None,
                 timeout: httpx.Timeout | float | None = None, strict: bool | None = None,
                 http: httpx.AsyncClient | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self._strict = strict
        self._own = http is None
        self._http = http or httpx.AsyncClient(timeout=timeout or DEFAULT_TIMEOUT)
        self._headers = _http.headers(_token(token, token_file))
        self._verified = self._ended = False

    async def __aenter__(self) -> AsyncEnvClient:
        return self

    async def __aexit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Closes the client; after :meth:`verify` it first tells the server it is done (:meth:`end`)."""
        try:
            if self._verified and not self._ended:
                await self.end()
        except CrucibleError:
            pass
        finally:
            if self._own:
                await self._http.aclose()

    async def end(self) -> None:
        """POST /v1/close: after verify, the API stops answering now instead of at its grace period's end."""
        await self._call(Closing, "POST", "/v1/close")
        self._ended = True

    async def _call(self, cls: type[T], method: str, path: str, body: Any = None) -> T:
        attempt = 0
        waited = 0.0
        while True:
            try:
                r = await self._http.request(method, self.base_url + path, headers=self._headers, json=body)
                delay = _http.setting_up(r, waited)
                if delay is not None:
                    await asyncio.sleep(delay)
                    waited += delay
                    continue
                return _http.answer(cls, r, self._strict)
            except httpx.TransportError as e:
                attempt += 1
                if not _http.may_retry(method, e, attempt):
                    raise _http.transport_error(method, path, e) from e
                await asyncio.sleep(_http.BACKOFF_S * attempt)

    async def health(self) -> Health:
        return await self._call(Health, "GET", "/healthz")

    async def reset(self) -> ResetResult:
        return await self._call(ResetResult, "POST", "/v1/reset")

    async def step(self, tool: str, args: Mapping[str, Any] | None = None, **kwargs: Any) -> StepResult:
        return await self._call(StepResult, "POST", "/v1/step", _http.step_body(tool, args, kwargs))

    async def bash(self, command: str, *, cwd: str | None = None, timeout_seconds: int | None = None) -> StepResult:
        return await self.step("bash", command=command, cwd=cwd, timeoutSeconds=timeout_seconds)

    async def read_file(self, path: str) -> StepResult:
        return await self.step("read_file", path=path)

    async def write_file(self, path: str, content: str) -> StepResult:
        return await self.step("write_file", path=path, content=content)

    async def edit(self, path: str, old_str: str, new_str: str) -> StepResult:
        return await self.step("edit", path=path, old_str=old_str, new_str=new_str)

    async def list(self, path: str = ".") -> StepResult:
        return await self.step("list", path=path)

    async def verify(self) -> VerifyReport:
        report = await self._call(VerifyReport, "POST", "/v1/verify")
        self._verified = True
        return report

    async def findings(self) -> FindingsResponse:
        return await self._call(FindingsResponse, "GET", "/v1/findings")

    async def hand_in_trajectory(self, atif: Mapping[str, Any]) -> HandedIn:
        """See :meth:`EnvClient.hand_in_trajectory`."""
        return await self._call(HandedIn, "POST", "/v1/trajectory", dict(atif))
