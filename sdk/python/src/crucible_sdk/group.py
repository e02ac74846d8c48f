"""GRPO-style groups: N attempts of one task, run together and awaited together.

``run_group`` starts one ``crucible run --attempts N --parallel P`` (P = ``max_in_flight``: the run itself
starts at most P attempts at once, the rest wait in its queue), gives each attempt's episode to ``policy``
once its API is ready, verifies it when the policy returns (also when it raised, so the slot is freed), and
reads each attempt's result.json once the run has ended. Cancelling the awaiting task (or any error of
this code) stops the run by its process group, so nothing it started outlives it."""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from ._models import Finding, ResetResult, RolloutResult, StepResult, VerifyReport
from .client import AsyncEnvClient
from .local import LocalRun


@dataclass(frozen=True)
class Step:
    """One step of a trajectory: the call and the answer."""

    tool: str
    args: dict[str, Any]
    result: StepResult


class Episode(AsyncEnvClient):
    """The client a policy gets: the reset's answer (task prompt, tools) and the trajectory so far."""

    def __init__(self, base_url: str, index: int = 0, reset: ResetResult | None = None, **kwargs: Any) -> None:
        super().__init__(base_url, **kwargs)
        self.index = index  # the attempt's number in its group
        self.reset_result = reset
        self.trajectory: list[Step] = []

    async def step(self, tool: str, args: Mapping[str, Any] | None = None, **kwargs: Any) -> StepResult:
        r = await super().step(tool, args, **kwargs)
        self.trajectory.append(Step(tool, {**(args or {}), **{k: v for k, v in kwargs.items() if v is not None}}, r))
        return r


Policy = Callable[[Episode], Awaitable[None]]


@dataclass
class Attempt:
    """One attempt's outcome. ``reward`` is what to train on (floored by a counted finding); ``error`` is the
    policy's or the API's exception, if any (the attempt is then still verified when it can be)."""

    task: str
    index: int
    reward: float | None = None
    phase: str | None = None
    report: VerifyReport | None = None
    result: RolloutResult | None = None
    findings: list[Finding] = field(default_factory=list)
    trajectory: list[Step] = field(default_factory=list)
    error: BaseException | None = None


@dataclass
class Group:
    task: str
    attempts: list[Attempt]
    out: str

    @property
    def rewards(self) -> list[float | None]:
        return [a.reward for a in self.attempts]


async def run_group(environment: str | os.PathLike[str], policy: Policy, *, attempts: int = 8,
                    max_in_flight: int | None = None, crucible: str | os.PathLike[str] | None = None,
                    out: str | os.PathLike[str] | None = None, ready_timeout: float = 600.0,
                    semaphore: asyncio.Semaphore | None = None) -> Group:
    """Runs ``attempts`` attempts of ``environment`` (an environment.yaml) with ``policy`` and returns them all."""
    bound = max(1, min(attempts, max_in_flight or attempts))
    run = LocalRun(environment, attempts=attempts, parallel=bound, out=out, crucible=crucible)
    task = str(environment)
    results = [Attempt(task, i) for i in range(attempts)]
    limit = semaphore or asyncio.Semaphore(bound)
    await asyncio.to_thread(run.start)
    try:
        async with httpx.AsyncClient(timeout=httpx.Timeout(connect=10.0, read=None, write=30.0, pool=None),
                                     limits=httpx.Limits(max_connections=None, max_keepalive_connections=bound)) as http:
            tasks = [asyncio.ensure_future(_attempt(run, policy, results[i], http, limit, ready_timeout)) for i in range(attempts)]
            try:
                await asyncio.gather(*tasks)
            except BaseException:  # one attempt could not start (the run died): the others stop too, then the run
                for t in tasks:
                    t.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
                raise
        if all(a.report is not None for a in results):
            try:
                await asyncio.to_thread(run.wait, 120)  # every attempt verified: the run writes summary.json and ends
            except subprocess.TimeoutExpired:
                pass  # stopped below; its results are written on SIGTERM
        # else an attempt was never verified (its reset or verify failed) and would hold the run until its deadline:
        # stopping writes its result.json (and is a no-op for a run that ended by itself)
        await asyncio.to_thread(run.stop)
        for a in results:
            a.result = run.result(a.index)
            if a.result is not None:
                a.reward, a.phase = a.result.reward, a.result.phase.value if a.result.phase else None
                a.findings = list(a.result.hackFindings or a.findings)
    finally:
        await asyncio.shield(asyncio.to_thread(run.stop))  # SIGTERM, then SIGKILL; a no-op once the run ended by itself
    return Group(task, results, str(run.out))


async def _attempt(run: LocalRun, policy: Policy, a: Attempt, http: httpx.AsyncClient, limit: asyncio.Semaphore,
                   ready_timeout: float) -> None:
    async with limit:
        ep = await run.endpoint_async(a.index, ready_timeout)
        episode = Episode(ep.url, a.index, token_file=ep.token_file, http=http)
        try:
            episode.reset_result = await episode.reset()
            await policy(episode)
        except Exception as e:  # recorded on the attempt; the group goes on (a cancellation is no Exception)
            a.error = e
        finally:
            a.trajectory = episode.trajectory
        try:
            a.report = await episode.verify()
            a.reward, a.phase, a.findings = a.report.reward, a.report.phase, list(a.report.hackFindings or [])
        except Exception as e:
            a.error = a.error or e
        finally:
            await episode.aclose()  # after a verify, POST /v1/close: the attempt ends now, not after the API's grace period


async def run_groups(environments: Sequence[str | os.PathLike[str]], policy: Policy, *, attempts: int = 8,
                     max_in_flight: int = 16, crucible: str | os.PathLike[str] | None = None,
                     ready_timeout: float = 600.0) -> list[Group]:
    """One group per environment, with at most ``max_in_flight`` policies running across all of them."""
    shared = asyncio.Semaphore(max_in_flight)
    return list(await asyncio.gather(*(run_group(e, policy, attempts=attempts, max_in_flight=max_in_flight,
                                                 crucible=crucible, ready_timeout=ready_timeout, semaphore=shared)
                                       for e in environments)))
