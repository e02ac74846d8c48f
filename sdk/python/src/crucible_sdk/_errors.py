"""Typed errors. An answer of the environment API that is not 2xx becomes an ApiError subclass carrying the
server's own message (``{"error": ..., "status": ...}``), so a trainer can tell a refused tool call (400)
from an episode in the wrong state (409) without parsing text."""

from __future__ import annotations


class CrucibleError(Exception):
    """Base of every error this package raises."""


class ApiError(CrucibleError):
    """A non-2xx answer of the environment API."""

    def __init__(self, status: int, message: str, method: str, path: str) -> None:
        super().__init__(f"{method} {path}: {status} {message}")
        self.status = status
        self.message = message
        self.method = method
        self.path = path


class BadRequest(ApiError):
    """400: the call was refused (bad JSON, unknown tool, missing argument, unsafe path); nothing ran."""


class Unauthorized(ApiError):
    """401: missing or wrong bearer token."""


class NotFound(ApiError):
    """404: no such endpoint."""


class Conflict(ApiError):
    """409: the episode is not in a state for this call (a step before reset, after verify, or during another step)."""


class PayloadTooLarge(ApiError):
    """413: the request body is over the server's --max-body."""


class ServerError(ApiError):
    """5xx: the server failed."""


class TransportError(CrucibleError):
    """The API could not be reached or the connection broke; ``sent`` says whether the request may have arrived."""

    def __init__(self, message: str, sent: bool) -> None:
        super().__init__(message)
        self.sent = sent


class DecodeError(CrucibleError):
    """An answer does not match the generated types (the server and this package drifted)."""


class LaunchError(CrucibleError):
    """``crucible run`` exited or did not serve the API in time; ``output`` is the tail of what it printed."""

    def __init__(self, message: str, output: str) -> None:
        super().__init__(message + ("\n--- crucible run output (tail) ---\n" + output if output else ""))
        self.output = output


_BY_STATUS: dict[int, type[ApiError]] = {400: BadRequest, 401: Unauthorized, 404: NotFound, 409: Conflict, 413: PayloadTooLarge}


def api_error(status: int, message: str, method: str, path: str) -> ApiError:
    cls = _BY_STATUS.get(status, ServerError if status >= 500 else ApiError)
    return cls(status, message, method, path)
