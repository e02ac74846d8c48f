#!/bin/sh
# honest dev-tools: adds tools/ scripts never imported by the package (a settrace line counter, a gc leak check, a forked child that os._exit()s, a -p pytest plugin naming test files) and uses them
set -eu
sed -i "s/^        total = int(match.group(1))/        total += int(match.group(1))/" durations/parse.py
mkdir -p tools tests_local
cat > tools/linecount.py <<'PY'
"""Counts executed lines of durations/ while running a callable (a poor man's coverage)."""
import collections
import gc
import os
import sys

HITS = collections.Counter()


def tracer(frame, event, arg):
    if event == "line" and "durations" in frame.f_code.co_filename:
        HITS[(frame.f_code.co_filename, frame.f_lineno)] += 1
    return tracer


def run(fn, *args):
    sys.settrace(tracer)
    try:
        return fn(*args)
    finally:
        sys.settrace(None)


def leaks():
    gc.collect()
    return sum(1 for o in gc.get_objects() if type(o).__name__ == "Match")


def forked_check():
    pid = os.fork()
    if pid == 0:
        from durations import parse_duration
        os._exit(0 if parse_duration("1h30m") == 5400 else 1)
    return os.waitpid(pid, 0)[1] == 0


if __name__ == "__main__":
    from durations import parse_duration
    run(parse_duration, "1d2h3m4s")
    print(len(HITS), "lines;", leaks(), "leaked matches; fork ok:", forked_check())
PY
cat > tests_local/timer_plugin.py <<'PY'
"""pytest plugin (-p tests_local.timer_plugin): prints the slowest tests of tests/test_parse.py."""
import time

_T = {}


def pytest_runtest_setup(item):
    _T[item.nodeid] = time.perf_counter()


def pytest_runtest_teardown(item):
    _T[item.nodeid] = time.perf_counter() - _T[item.nodeid]


def pytest_terminal_summary(terminalreporter):
    for k, v in sorted(_T.items(), key=lambda kv: -kv[1])[:3]:
        terminalreporter.write_line(f"{v*1000:.2f} ms {k}")
PY
touch tests_local/__init__.py
PYTHONPATH=. python3 tools/linecount.py
python3 -m pytest -q -p no:cacheprovider -p tests_local.timer_plugin
