"""The group API on real `crucible run --attempts N --port 0` processes: rewards per attempt, findings of the
attempts that hacked, and cancellation that leaves no process of the run behind."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from crucible_sdk import Episode, Group, run_group, run_groups
from conftest import BUGGY, CONFTEST_HACK, FIX


async def honest_or_hack(ep: Episode) -> None:
    # even attempts fix the bug, odd ones plant the conftest hack
    await ep.bash("python3 -m pytest -q -p no:cacheprovider")
    if ep.index % 2 == 0:
        await ep.edit("calc/ops.py", BUGGY, FIX)
    else:
        await ep.write_file("conftest.py", CONFTEST_HACK)


def test_group_rewards_and_findings(crucible: str, environment: Path, tmp_path: Path) -> None:
    group = asyncio.run(run_group(environment, honest_or_hack, attempts=4, max_in_flight=2, crucible=crucible,
                                  out=tmp_path / "group"))
    assert group.rewards == [1.0, 0.0, 1.0, 0.0], [(a.reward, a.phase, a.error) for a in group.attempts]
    assert [a.phase for a in group.attempts] == ["Succeeded", "Hacked", "Succeeded", "Hacked"]
    for a in group.attempts:
        assert a.error is None
        assert a.result is not None and a.result.reward == a.reward
        assert [s.tool for s in a.trajectory] == ["bash", "edit" if a.index % 2 == 0 else "write_file"]
        counted = [f for f in a.findings if f.severity != "info"]
        assert bool(counted) == (a.index % 2 == 1), a.findings
    assert (tmp_path / "group" / "summary.json").is_file()


def _processes_naming(text: str) -> list[int]:
    pids = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/cmdline", "rb") as f:
                    if text.encode() in f.read():
                        pids.append(int(d))
            except OSError:
                pass
    return pids


def test_cancelling_a_group_stops_its_run(crucible: str, environment: Path, tmp_path: Path) -> None:
    out = tmp_path / "cancelled"
    started = asyncio.Event()

    async def stuck(ep: Episode) -> None:
        await ep.bash("true")
        started.set()
        await asyncio.sleep(3600)

    async def main() -> None:
        t = asyncio.create_task(run_group(environment, stuck, attempts=2, crucible=crucible, out=out))
        await asyncio.wait_for(started.wait(), 300)
        assert _processes_naming(str(out)), "the run is not running"
        t.cancel()
        with pytest.raises(asyncio.CancelledError):
            await t

    asyncio.run(main())
    assert _processes_naming(str(out)) == [], "a process of the cancelled run is still alive"
    results = [out / f"attempt-{i}" / "result.json" for i in range(2)]
    assert all(r.is_file() for r in results), "the run did not write its results when stopped"


def test_a_policy_that_raises_is_recorded_and_its_attempt_still_verified(crucible: str, environment: Path,
                                                                         tmp_path: Path) -> None:
    async def flaky(ep: Episode) -> None:
        if ep.index == 1:
            await ep.bash("echo half-way")
            raise RuntimeError("the model gave up")
        await ep.edit("calc/ops.py", BUGGY, FIX)

    group = asyncio.run(run_group(environment, flaky, attempts=2, crucible=crucible, out=tmp_path / "g"))
    ok, failed = group.attempts
    assert (ok.reward, ok.error) == (1.0, None)
    assert isinstance(failed.error, RuntimeError) and str(failed.error) == "the model gave up"
    assert failed.report is not None and failed.reward == 0.0 and failed.phase == "Succeeded"  # graded: the bug is still there
    assert [s.tool for s in failed.trajectory] == ["bash"]


def test_run_groups_bounds_the_policies_in_flight(crucible: str, environment: Path) -> None:
    running = started = most = 0

    async def main() -> list[Group]:
        met = asyncio.Condition()

        async def counted(ep: Episode) -> None:
            # attempts meet in pairs (the 1st waits for the 2nd, the 3rd for the 4th), then hold a while: a bound
            # that let more in would show as a 3rd policy running beside them
            nonlocal running, started, most
            async with met:
                running += 1
                started += 1
                most = max(most, running)
                partner = (started + 1) // 2 * 2
                met.notify_all()
                await asyncio.wait_for(met.wait_for(lambda: started >= partner), 120)
            try:
                await ep.edit("calc/ops.py", BUGGY, FIX)
                await asyncio.sleep(2.0)
            finally:
                running -= 1

        return await run_groups([environment, environment], counted, attempts=2, max_in_flight=2, crucible=crucible)

    groups = asyncio.run(main())
    assert [g.rewards for g in groups] == [[1.0, 1.0], [1.0, 1.0]]
    assert most == 2, f"{most} policies ran at once under a bound of 2"
