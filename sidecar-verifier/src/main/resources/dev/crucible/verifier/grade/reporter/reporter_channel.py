"""Crucible's grader-owned pytest reporter (shipped by sidecar-verifier; written fresh before each grading run).

Imported by the grading bootstrap before the grading tree joins sys.path and handed to
pytest.main(plugins=[...]), so it is in place before any code under test is imported. It:

* reports every test phase on the result channel the grader opened (fd 3, a FIFO read by the Java
  side while the run goes on) as JSON lines {"v":1,"seq":N,"nonce":...,"type":...};
* checks, on every report and at session end, that the pytest internals grading depends on are the
  objects (and code) captured at import, and that no hook implementation or plugin comes from a file
  of the grading tree other than the grader's own copies;
* installs an audit hook (sys.addaudithook cannot be undone) that reports, with file and line, what
  code of the grading tree does to reach past the test interface: frame introspection, reads of test
  sources, ctypes, gc walks, code/function surgery, opening the channel or the environment of a
  process. Spawns and sockets during tests are recorded with severity "info".

The line protocol is described in sidecar-verifier/README.md ("Result channel").
"""
import time
_T_IMPORT = time.time()  # the bench's "box start" ends here (see GradingPhases)
import builtins
import json
import os
import stat
import sys
import threading

import _pytest
import _pytest.config
import _pytest.junitxml
import _pytest.main
import _pytest.outcomes
import _pytest.python
import _pytest.reports
import _pytest.runner
import _pytest.skipping
import _pytest.terminal
import pluggy
import pytest


_FD = 3
_NONCE_VAR = "CRUCIBLE_REPORT_NONCE"
_NONCE_FILE_VAR = "CRUCIBLE_REPORT_NONCE_FILE"
_HERE = os.path.dirname(os.path.abspath(__file__))
_MAX_FIELD = 1500
_write = os.write
_dumps = json.dumps
_getframe = sys._getframe
_monotonic = time.monotonic
_perf = time.perf_counter
_T_SETUP = _perf()
# The reporter's own time, in seconds, by kind: reported at session end for the bench (never graded).
_COST = {"import": 0.0, "audit": 0.0, "checks": 0.0}


def _load_config():
    try:
        with open(os.path.join(_HERE, "crucible_reporter.json"), "r", encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


_CFG = _load_config()
_ROOT = os.path.realpath(_CFG.get("root") or os.getcwd())
# Grader-owned files of the grading tree (pristine copies, hidden tests), relative to the root.
_GRADER = {rel: meta for rel, meta in (_CFG.get("files") or {}).items()}
_TEST_SOURCES = frozenset(rel for rel, meta in _GRADER.items() if meta.get("test") and rel.endswith(".py"))
# Of those, the ones whose bytes the agent never saw (a hidden test): only reading these tells the tree what is expected;
# a visible test file (the task's own, restored) was the agent's to read all along (blind round 8, h03). No "hidden" key: all.
_HIDDEN_SOURCES = frozenset(rel for rel in _TEST_SOURCES if _GRADER[rel].get("hidden", True))


def _take_nonce():
    nonce = os.environ.pop(_NONCE_VAR, None)
    # A wrapper's pytest (make, a script): the nonce is in a file only this import reads, and deletes, so no other
    # process of the wrapper holds it in its environment (blind round 12, x25).
    path = os.environ.pop(_NONCE_FILE_VAR, None)
    try:
        import posix
        posix.environ.pop(_NONCE_VAR.encode(), None)
        posix.environ.pop(_NONCE_FILE_VAR.encode(), None)
    except (ImportError, AttributeError):
        pass
    if path and nonce is None:
        try:
            with open(path, "r", encoding="ascii") as f:
                nonce = f.read().strip() or None
            os.unlink(path)
        except (OSError, ValueError):
            nonce = None  # read by another process first, or gone: no channel, and the grade says so
    return nonce


_NONCE = _take_nonce()


def _close_to_children():
    """Makes this process non-dumpable, so a process the tests start (the tree's CLI run by a test: same uid, no
    capability in the box) cannot open its /proc entries: the initial environment that still holds the nonce, the
    channel's descriptor, its memory (blind grading round 17, x14). Its own /proc/self stays readable to it."""
    before = set(sys.modules)
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
    except (OSError, AttributeError, ImportError):
        pass  # not Linux: nothing to close
    for name in set(sys.modules) - before:  # ctypes loaded here would tell the tree it is graded
        sys.modules.pop(name, None)


_close_to_children()


def _channel_ok():
    try:
        return _NONCE is not None and stat.S_ISFIFO(os.fstat(_FD).st_mode)
    except OSError:
        return False


ACTIVE = _channel_ok()
if ACTIVE:
    # Processes the tests start do not inherit the channel.
    os.set_inheritable(_FD, False)

_PID = os.getpid()
_lock = threading.Lock()
_state = {"seq": 0, "nodeid": None, "ended": False}
_seen_findings = set()


def _emit(kind, **fields):
    # A process forked by a test (multiprocessing) keeps fd 3 but is not the reporter's process.
    if not ACTIVE or os.getpid() != _PID:
        return
    with _lock:
        _state["seq"] += 1
        rec = {"v": 1, "seq": _state["seq"], "nonce": _NONCE, "pid": _PID, "type": kind}
        for k, v in fields.items():
            if isinstance(v, str) and len(v) > _MAX_FIELD:
                v = v[:_MAX_FIELD] + "..."
            rec[k] = v
        data = (_dumps(rec, separators=(",", ":"), default=str) + "\n").encode("utf-8", "replace")
        try:
            while data:
                n = _write(_FD, data)
                data = data[n:]
        except OSError:
            pass


def _finding(severity, where, evidence, kind):
    key = (kind, where)
    if key in _seen_findings:
        return
    _seen_findings.add(key)
    _emit("finding", detector="grader-tampering", severity=severity, path=where, evidence=evidence,
          check=kind, nodeid=_state["nodeid"])


