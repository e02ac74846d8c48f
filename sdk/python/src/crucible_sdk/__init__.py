"""Crucible's Python SDK: clients of the environment API, the local runtime, and GRPO-style groups."""

from ._decode import decode
from ._errors import (ApiError, BadRequest, Conflict, CrucibleError, DecodeError, LaunchError, NotFound,
                      PayloadTooLarge, ServerError, TransportError, Unauthorized)
from ._models import (Finding, FindingsResponse, Health, ResetResult, RolloutResult, StepResult, TestCase,
                      VerifyReport)
from .client import AsyncEnvClient, EnvClient
from .group import Attempt, Episode, Group, Policy, Step, run_group, run_groups
from .local import Endpoint, LocalRun, find_crucible

__all__ = [
    "ApiError", "AsyncEnvClient", "Attempt", "BadRequest", "Conflict", "CrucibleError", "DecodeError", "Endpoint",
    "EnvClient", "Episode", "Finding", "FindingsResponse", "Group", "Health", "LaunchError", "LocalRun", "NotFound",
    "PayloadTooLarge", "Policy", "ResetResult", "RolloutResult", "ServerError", "Step", "StepResult", "TestCase",
    "TransportError", "Unauthorized", "VerifyReport", "decode", "find_crucible", "run_group", "run_groups",
]
__version__ = "0.1.0"
