"""Step overhead of the environment API, driven from one Python process with 64 concurrent episodes.

Starts one ``crucible run --attempts 64 --parallel 64 --port 0`` on examples/python-bugfix, resets every episode,
then has every episode take ``--steps`` bash steps at once. The peer, measured in the same run: the same command
run directly in a subprocess (``bash -c CMD`` in the workspace) by 64 concurrent workers. Overhead at a quantile
is the step's latency minus the direct run's at that quantile. Prints one line:

    episodes=64 steps_per_s=... step_overhead_p50_ms=... step_overhead_p99_ms=... sdk_rss_mib=...

then the raw figures. Run: python sdk/python/bench/bench_steps.py [--episodes 64] [--steps 20]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

from crucible_sdk import AsyncEnvClient, LocalRun

REPO = Path(__file__).resolve().parents[3]
COMMAND = "echo step; cat calc/ops.py > /dev/null"


def quantile(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def rss_mib(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def episodes(run: LocalRun, n: int, steps: int) -> tuple[list[float], list[float], float, list[str], str]:
    eps = await asyncio.gather(*(run.endpoint_async(i, timeout=1200) for i in range(n)))
    latencies: list[float] = []
    in_box: list[float] = []  # the server's elapsedMs: the command in its box, without the monitor's scan and HTTP
    async with httpx.AsyncClient(timeout=httpx.Timeout(connect=10.0, read=None, write=30.0, pool=None),
                                 limits=httpx.Limits(max_connections=None, max_keepalive_connections=n)) as http:
        clients = [AsyncEnvClient(e.url, token_file=e.token_file, http=http) for e in eps]
        workspaces = [(await c.reset()).workspace or "" for c in clients]

        async def drive(c: AsyncEnvClient) -> None:
            for _ in range(steps):
                t = time.perf_counter()
                r = await c.bash(COMMAND)
                latencies.append((time.perf_counter() - t) * 1000)
                in_box.append(float(r.elapsedMs))
                if r.exitCode != 0:
                    raise RuntimeError(f"step failed: {r.observation}")

        t0 = time.perf_counter()
        await asyncio.gather(*(drive(c) for c in clients))
        wall = time.perf_counter() - t0
        own = await sdk_own_cost(clients[0], http)
    return latencies, in_box, wall, workspaces, own


async def sdk_own_cost(c: AsyncEnvClient, http: httpx.AsyncClient, n: int = 300) -> str:
    """The SDK's own share, apart from the server: GET /healthz through the client vs through httpx alone."""
    sdk: list[float] = []
    raw: list[float] = []
    for _ in range(n):
        t = time.perf_counter()
        await c.health()
        sdk.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        (await http.get(c.base_url + "/healthz")).json()
        raw.append((time.perf_counter() - t) * 1000)
    return (f"  the SDK's own cost per call (GET /healthz, {n} each, sequential): sdk p50={quantile(sdk, 0.5):.2f} ms "
          f"p99={quantile(sdk, 0.99):.2f} ms; httpx alone p50={quantile(raw, 0.5):.2f} ms p99={quantile(raw, 0.99):.2f} ms")


async def direct(workspaces: list[str], steps: int) -> list[float]:
    latencies: list[float] = []

    async def drive(cwd: str) -> None:
        for _ in range(steps):
            t = time.perf_counter()
            p = await asyncio.create_subprocess_exec("bash", "-c", COMMAND, cwd=cwd, stdout=asyncio.subprocess.PIPE,
                                                     stderr=asyncio.subprocess.STDOUT)
            await p.communicate()
            latencies.append((time.perf_counter() - t) * 1000)

    await asyncio.gather(*(drive(w) for w in workspaces))
    return latencies


# The server's phases of one step (EnvironmentApi's StepPhases), nested as they run; a phase a build does not time is left out.
PHASES: list[tuple[str, list[str]]] = [
    ("queue", []),  # the request waiting for a worker thread
    ("step", []),  # all of it on the worker: the rows below, and the bookkeeping between them
    ("box", ["box_prepare", "box_session", "box_session_start", "session_send", "exec_spawn", "exec_wait", "exec_kill",
             "exec_join", "session_check"]),  # hand-over of the workspace to the box, the command in the box
    # the scan that ends each step (scan_files: all of it but the processes; scan_tree: from the walk to .git)
    ("monitor", ["scan_processes", "scan_files", "scan_lock", "scan_tree", "scan_walk", "scan_stat", "scan_feed",
                 "scan_analyse", "scan_rules", "scan_git", "scan_site", "scan_grader", "scan_pristine"]),
    ("trajectory", ["trajectory"]),  # the step's append to the rollout's trajectory
]


def server_phases(path: Path) -> str:
    """p50 / p99 ms of each phase the server timed per step (see PHASES), nested: queue (to a worker), step (all of
    Episode.step plus the trajectory's append), the box (hand-over of the workspace, the command), the monitor's scan
    (processes; the workspace's stat walk, change times, the change feed, the analysis of what changed, the rules; .git;
    the site folders; grader files; the pristine copy) and the trajectory."""
    if not path.exists():
        return "  server phases: none recorded (a CLI without CRUCIBLE_STEP_PHASES support)"
    by: dict[str, list[float]] = {}
    lines = path.read_text().splitlines()
    for line in lines:
        for kv in line.split():
            k, _, v = kv.partition("=")
            by.setdefault(k, []).append(float(v))

    def q(k: str) -> str:
        v = by[k] + [0.0] * (len(lines) - len(by[k]))  # a phase a step did not go through took 0 ms in it
        return f"{k}={quantile(v, 0.5):.1f}/{quantile(v, 0.99):.1f}"

    out = [f"  server phases ms p50/p99 over {len(lines)} steps:"]
    named: set[str] = set()
    for group, keys in PHASES:
        present = [k for k in (keys or [group]) if k in by]
        named.update(present)
        if present:
            out.append(f"    {group:<10} " + " ".join(q(k) for k in present))
    rest = sorted(k for k in by if k not in named)
    if rest:
        out.append("    other      " + " ".join(q(k) for k in rest))
    return "\n".join(out)


def _stop(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)  # unwinds through LocalRun's exit, which stops the run (its own session, else orphaned)


def main() -> int:
    signal.signal(signal.SIGTERM, _stop)  # `timeout` sends SIGTERM
    ap = argparse.ArgumentParser(description="environment API step overhead, 64 concurrent episodes")
    ap.add_argument("--episodes", type=int, default=64)
    ap.add_argument("--steps", type=int, default=20, help="steps per episode")
    ap.add_argument("--crucible", default=str(REPO / "crucible"))
    a = ap.parse_args()
    env = REPO / "examples" / "python-bugfix" / "environment.yaml"
    out = Path(tempfile.mkdtemp(prefix="crucible-bench-"))
    phases = out / "step-phases.txt"  # the server's split of each step (EnvironmentApi's StepPhases), read after the run
    os.environ["CRUCIBLE_STEP_PHASES"] = str(phases)
    t0 = time.perf_counter()
    with LocalRun(env, attempts=a.episodes, parallel=a.episodes, out=out, crucible=a.crucible) as run:
        try:
            api, in_box, wall, workspaces, own = asyncio.run(episodes(run, a.episodes, a.steps))
        except Exception:
            print(run.output(), file=sys.stderr)
            raise
        ready_s = time.perf_counter() - t0 - wall
        peer = asyncio.run(direct(workspaces, a.steps))
    p50 = quantile(api, 0.50) - quantile(peer, 0.50)
    p99 = quantile(api, 0.99) - quantile(peer, 0.99)
    print(f"episodes={a.episodes} steps_per_s={len(api) / wall:.1f} step_overhead_p50_ms={p50:.1f} "
          f"step_overhead_p99_ms={p99:.1f} sdk_rss_mib={rss_mib('VmHWM'):.1f}")
    print(f"  api step ms: p50={quantile(api, 0.5):.1f} p99={quantile(api, 0.99):.1f} mean={statistics.mean(api):.1f} "
          f"({len(api)} steps in {wall:.1f} s)")
    rest = [x - y for x, y in zip(api, in_box)]
    print(f"  of which the command in its box (server's elapsedMs): p50={quantile(in_box, 0.5):.1f} p99={quantile(in_box, 0.99):.1f};"
          f" the rest (monitor scan, HTTP, SDK): p50={quantile(rest, 0.5):.1f} p99={quantile(rest, 0.99):.1f}")
    print(f"  direct subprocess ms (peer, same concurrency): p50={quantile(peer, 0.5):.1f} p99={quantile(peer, 0.99):.1f}")
    print(own)
    print(server_phases(phases))
    print(f"  time to {a.episodes} ready episodes (setup of every attempt): {ready_s:.1f} s; cpus={os.cpu_count()}; load={os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
