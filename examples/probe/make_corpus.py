#!/usr/bin/env python3
"""Writes corpus.jsonl: a synthetic SWE-style probe corpus with a learnable signal, and
policy-sample.jsonl: unlabelled generations of the same "base policy" (no k, n) on which
`crucible probe train --policy` measures reward variance under policy (RVP).

Each row is a bug-writing agent's trajectory (or, for some rows, the rendered task text) in one of
12 repositories (the group key). The kind of bug decides the solver's per-attempt success chance
(easy ~0.9, frontier ~0.25, hard ~0.02); k is drawn as Binomial(8, p). With the default band
(1-3 solves of 8) frontier bugs are mostly positive, easy and hard ones mostly negative, so the
label is a noisy but learnable function of the text. Each row also carries `solvers`: the same
counts as "small" and a stronger solver's as "large" (its band falls on the hard bugs), for the
head x solver facets and `--solver large`. Stdlib only; fixed seed: rerunning gives the
same file.
"""
import json
import os
import random

SEED = 1234
ROWS = 600
POLICY_ROWS = 200
N = 8
REPOS = ["acme/httpkit", "acme/dateparse", "orbit/cachelib", "orbit/tasks", "lumen/cli-tools",
         "lumen/orm", "vega/plotting", "vega/units", "nimbus/queue", "nimbus/auth", "tern/config",
         "tern/templating"]
MODULES = ["client", "parser", "store", "scheduler", "formatter", "router", "session", "schema",
           "encoder", "retry", "loader", "registry"]
FUNCS = ["parse_header", "next_page", "merge_options", "render_row", "resolve_path", "flush",
         "load_config", "tokenize", "apply_defaults", "compute_total", "validate_input", "normalize"]

KINDS = {
    "easy": (0.9, [
        "rename a local variable so a NameError is raised immediately",
        "make the function return None instead of the computed value",
        "raise a ValueError unconditionally at the top of the function",
        "delete the import so the module fails to load",
        "flip the returned boolean so every call returns the opposite",
        "replace the result with an empty string before returning",
    ]),
    "frontier": (0.25, [
        "shift the loop bound by one so the last page is silently dropped",
        "use a strict comparison at the boundary so the edge value is excluded",
        "swap the merge order so user options are overwritten by defaults",
        "skip trimming whitespace only when the value ends with a newline",
        "reuse the accumulator across calls so totals drift after the first call",
        "ignore the timezone offset when the date falls on the first of the month",
    ]),
    "hard": (0.02, [
        "introduce a race between the worker threads that only shows under load",
        "corrupt the cache key for unicode paths after normalization to NFD",
        "change float rounding in the accumulation so errors grow past 1e-9 in long runs",
        "leak a file handle that exhausts descriptors after thousands of calls",
        "reorder lock acquisition so a deadlock occurs when two sessions expire together",
        "make retries use a shared mutable backoff list that is mutated by callbacks",
    ]),
}
WEIGHTS = {"easy": 0.35, "frontier": 0.35, "hard": 0.30}
# a second, stronger target solver: its learnable band moves from the frontier bugs to the hard ones
LARGE = {"easy": 0.98, "frontier": 0.6, "hard": 0.15}


def binomial(rnd, n, p):
    return sum(1 for _ in range(n) if rnd.random() < p)


def row(rnd, i, large_rnd=None):
    kind = rnd.choices(list(WEIGHTS), weights=list(WEIGHTS.values()))[0]
    p, bugs = KINDS[kind]
    bug = rnd.choice(bugs)
    repo = rnd.choice(REPOS)
    module = rnd.choice(MODULES)
    func = rnd.choice(FUNCS)
    path = f"src/{repo.split('/')[1].replace('-', '_')}/{module}.py"
    test = f"tests/test_{module}.py::test_{func}"
    turns = [
        f"I will explore {repo} and read {path} to find where {func} is implemented.",
        f"Found {func} in {path}. Plan: {bug}.",
        f"Edited {path}: {bug}. Running the suite: {test} now fails while the rest still passes.",
    ]
    if rnd.random() < 0.4:
        turns.insert(1, f"Listing the tests for {module}: {test} covers {func}.")
    out = {"id": f"bug-{i:04d}", "group": repo, "k": binomial(rnd, N, p), "n": N,
           "valid": rnd.random() > 0.08}
    if large_rnd is not None:
        # its own random stream, so the top-level fields stay what they were before solvers were added
        out["solvers"] = {"small": {"k": out["k"], "n": N}, "large": {"k": binomial(large_rnd, N, LARGE[kind]), "n": N}}
    if rnd.random() < 0.3:
        out["text"] = f"In {repo}, {path}: {func} was changed to {bug}. The failing test is {test}."
    else:
        out["turns"] = turns
    return out


def main():
    rnd = random.Random(SEED)
    large = random.Random(SEED + 2)
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "corpus.jsonl"), "w", encoding="utf-8") as f:
        for i in range(ROWS):
            f.write(json.dumps(row(rnd, i, large)) + "\n")
    policy = random.Random(SEED + 1)
    with open(os.path.join(here, "policy-sample.jsonl"), "w", encoding="utf-8") as f:
        for i in range(POLICY_ROWS):
            r = row(policy, i)
            r["id"] = f"gen-{i:04d}"
            del r["k"], r["n"], r["group"]
            f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
