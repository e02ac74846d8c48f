"""What the sync and async clients share: the token, request bodies, answer decoding and the retry rule.

Retries: a request the server never received (the connection could not be made) is safe to send again
whatever it is; after it may have arrived, only GETs (/v1/findings, /healthz) are retried, since reset,
step and verify each change the episode (a step run twice is two steps)."""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

import httpx

from ._decode import decode
from ._errors import CrucibleError, DecodeError, TransportError, api_error

T = TypeVar("T")

RETRIES = 3
BACKOFF_S = 0.2
SETUP_WAIT_S = 900.0  # how long a call waits out 503 "setting up" (the API listens while the environment's setup runs)


def setting_up(r: httpx.Response, waited: float) -> float | None:
    """Seconds to wait before sending again when the API is still setting up (503: nothing ran, so any call may be
    sent again), or None to answer now."""
    if r.status_code != 503 or waited >= SETUP_WAIT_S:
        return None
    try:
        return min(5.0, max(0.1, float(r.headers.get("Retry-After", "1"))))
    except ValueError:
        return 1.0


def read_token(token_file: str | os.PathLike[str]) -> str:
    """The bearer token in ``OUT/api-token``; refuses a file others may read, as the CLI writes it 0600."""
    p = Path(token_file)
    try:
        st = p.stat()
        text = p.read_text().strip()
    except OSError as e:
        raise CrucibleError(f"token file {p}: {e.strerror or e}") from e
    if st.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise CrucibleError(f"token file {p}: mode {stat.filemode(st.st_mode)} lets others read it; expected 0600")
    if not text:
        raise CrucibleError(f"token file {p}: empty")
    return text


def headers(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}", "Accept": "application/json"}


def step_body(tool: str, args: Mapping[str, Any] | None, kwargs: Mapping[str, Any]) -> dict[str, Any]:
    merged = {**(args or {}), **kwargs}
    return {"tool": tool, "args": {k: v for k, v in merged.items() if v is not None}}


def may_retry(method: str, exc: Exception, attempt: int) -> bool:
    if attempt >= RETRIES:
        return False
    if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout):
        return True  # never reached the server
    return method == "GET" and isinstance(exc, httpx.TransportError)


def transport_error(method: str, path: str, exc: Exception) -> TransportError:
    sent = not isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout)
    return TransportError(f"{method} {path}: {type(exc).__name__}: {exc}", sent=sent)


def answer(cls: type[T], r: httpx.Response, strict: bool | None) -> T:
    method, path = r.request.method, r.request.url.path
    try:
        body = r.json()
    except ValueError:
        body = None
    if r.status_code >= 400:
        msg = body.get("error") if isinstance(body, dict) and isinstance(body.get("error"), str) else r.text[:500]
        raise api_error(r.status_code, str(msg), method, path)
    if body is None:
        raise DecodeError(f"{method} {path}: answer is not JSON: {r.text[:200]!r}")
    return decode(cls, body, strict)
