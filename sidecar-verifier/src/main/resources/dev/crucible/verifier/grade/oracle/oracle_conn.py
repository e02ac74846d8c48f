# The trusted side's connection to the untrusted worker: one request, one answer, each with a deadline.
# A worker that dies, hangs past the deadline or answers garbage fails the call with OracleBroken, a
# BaseException that `pytest.raises(Exception)` cannot swallow; the next call starts a fresh worker.
# Every request carries a sequence number ("q") that its answer echoes. The code under test runs in the worker's
# process, so it can write to the worker's answer descriptor (blind round 8, x24/x29: one frame written there was
# taken as the current call's answer and every later answer as the next request's). A frame that is no answer to the
# request in flight, bytes left after an answer, and a stale answer found later (the real one behind a forged frame)
# are a `channel` attempt and void the session: no later call is answered, and the attempt voids the grade
# (OracleAttempts). A forged frame with the right number is still caught when the worker's own answer to that
# request follows it (next read, or the closing request of end()); only a tree that also stops its worker's answer
# (killing, hanging or rewiring it: an ended worker, a timeout, a `worker` attempt) gets a forged answer through,
# and that answer is one it could have returned anyway.
import datetime  # noqa: F401 - the wire's value types, imported before the tree joins sys.path (see oracle_wire)
import decimal  # noqa: F401
import fractions  # noqa: F401
import os
import pathlib  # noqa: F401
import cmath, itertools, math, operator, random, string  # noqa: F401,E401 - what crosses by name (oracle_wire.global_tag)
import select
import struct
import threading
import time

import oracle_wire
from oracle_attempts import Attempts  # noqa: F401 - oracle_conn.Attempts, as before the split
from oracle_excattrs import set_exc_attrs
from oracle_libexc import Mirrors, builtin_exception  # noqa: F401 - oracle_conn.Mirrors, as before the move
from oracle_wire import MAX_FRAME, WireError, decode, encode, parse_frame, write_frame

# an answer int bigger than this interpreter converts to text is refused (oracle_wire.MAX_INT_BITS); 0 means no limit
_DIGITS = getattr(__import__("sys"), "get_int_max_str_digits", lambda: 4300)()
oracle_wire.MAX_INT_BITS = _DIGITS * 3322 // 1000 + 1 if _DIGITS else None


BUDGET_REASON = "round-trip-budget"  # the reason's first word, which OracleReport and the grade's details look for
# The oracle's own checks of a comparison (backing probes, decoys: oracle_eq) are the grader's work, not the test's: a
# comparison costs the test's budget one round trip however many the checks take (blind round 11, x21/x22/x43: a tree
# whose objects cost ~10 checks per comparison pushed a 4,000-value loop past the budget, into in-process grading where
# its verifying __eq__ is believed). The checks have a bound of their own, CHECKS_PER_TRIP times the budget.
CHECKS_PER_TRIP = 4


class OracleBroken(BaseException):
    """The worker died, hung or answered garbage: the call fails, whatever the test expected."""


class NeedsInProcess(Exception):
    """The test does something the split cannot carry (a trusted callable into the tree, a patch of it):
    its verdict must come from in-process grading. Recorded where it is raised (oracle_plugin), so a test that
    catches it is still graded in-process; an Exception, so that pytest's teardown (which lets BaseExceptions
    through and leaves its setup state behind, pytest 7) stays sound."""


class BudgetSpent(NeedsInProcess):
    """A test past its round-trip budget (Conn.over_budget, which records it once): built without the plugin's
    per-construction record, which a test that catches it in a loop would otherwise grow by one line per call."""

    def __init__(self, *args):
        Exception.__init__(self, *args)


STARTUP_S = 60.0


class Conn:
    def __init__(self, launch, init, timeout):
        self.launch, self.init, self.timeout = launch, init, timeout
        self.proc = None
        self.gen = 0  # a reference of an earlier worker is dead
        self.calls = 0
        self.starts = 0
        self.start_wait = 0.0
        self.broken = []  # why each worker ended
        self.test = None  # the running test's record (see oracle_plugin), or None between tests
        self.attempts = Attempts()  # what the code under test tried, as its worker reported it (evidence only)
        self.on_warn = None  # issues the warnings a call's code issued in the worker (oracle_remote.Session)
        self.ended = False  # the session is over: no worker starts again (see end)
        self.seq = 0  # the number of the request in flight: its answer must echo it
        self.void = None  # why the channel can no longer be believed (a frame the worker did not write for its request)
        self.watch = None  # the kernel's watch on the hidden test data files (oracle_datawatch), drained around each call
        self.nodeid = None  # the running test's id, for the watch's evidence
        self.starting = False
        # the per-test round-trip budget (None: none). A test that needs more is stopped and graded in-process, named
        # so (BUDGET_REASON): a round trip costs 30-300 us by load, so a test's own loop of a million calls into the tree
        # (toolz's bench/) outlasts any grading timeout split, and takes a second in-process. Counted in round trips,
        # not seconds, so that the same tree and tests get the same label at any load (see the sidecar README).
        self.budget = None
        self.trips = 0  # this test's round trips so far (the plugin resets it per test and per collected module)
        self.ops = {}  # this test's round trips by request kind: what the budget's reason names
        self.spent = False  # the test's budget ran out (recorded once)
        self.checking = 0  # > 0 while the oracle checks a comparison: its round trips are counted in checks, not trips
        self.checks = 0  # this test's round trips spent checking its comparisons (CHECKS_PER_TRIP x budget at most)
        self.refused = 0  # this test's comparisons whose "equal" the isolated rule refused (oracle_remote._eq_found)
        self.sync = None  # the test's variables, folder and umask, carried to the worker (oracle_env.EnvSync)
        # one round trip at a time: threads of the test sharing this connection (gpt-engineer's test_concurrent_access)
        # would otherwise read each other's answers, which the number check takes for a forged `channel` frame. Held
        # for a whole request (a first call's worker start too, so that threads start one worker); reentrant, as a
        # start makes its own init round trip.
        self.lock = threading.RLock()

    # -- lifecycle
    def _start(self):
        t0 = time.monotonic()
        self.starting = True  # the launcher's own process (bwrap) is no process of the test's (oracle_datawatch)
        try:
            self._launch()
        finally:  # how long calls waited for workers to come up: the part of start-up not hidden behind pytest's
            self.start_wait += time.monotonic() - t0
            self.starting = False

    def _launch(self):
        self.proc = self.launch()
        self._buf = b""
        self._poll = select.poll()  # one poll object per worker: cheaper per call than select's fd lists
        self._poll.register(self.proc.rfd, select.POLLIN)
        os.set_blocking(self.proc.wfd, False)  # a worker that stops reading must not block a write past the deadline
        self.gen += 1
        self.starts += 1
        # a worker's start (box, interpreter, the oracle's modules) gets STARTUP_S at least: past 10 s on a loaded node
        self._roundtrip({"op": "init", **(self.init() if callable(self.init) else self.init)}, max(self.timeout, STARTUP_S))

    def end(self):
        """After the last verdict: the worker ends and none starts again. The reporter's teardown at exit empties the
        tree's modules (a stand-in's __dict__ is the worker's): a fresh worker for that cost ~0.7 s of every grade."""
        self.ended = True
        if self.proc is not None and self.void is None:
            # a closing request: an answer still queued behind a forged frame (a stale number) shows up before its answer
            self.timeout = min(self.timeout, 2.0)
            try:
                self._roundtrip({"op": "end"})
            except OracleBroken:
                pass
        self.close()
        if self.watch is not None:  # what a process the worker left behind read after the last call
            self.watched("after the last call", False)
            self.watch.close()

    def close(self):
        if self.proc is not None:
            self.proc.kill()
            self.proc = None

    def _fail(self, why):
        self.broken.append(why)
        if self.test is not None:
            self.test.broken.append(why)
        self.close()
        raise OracleBroken("isolated oracle: the worker running the code under test " + why)

    def wire_fail(self, what, depth=0):
        """An answer that cannot cross (blind round 10, x45/x10: a 6000-digit int made the answer's conversion raise a
        ValueError that the test's pytest.raises(ValueError) took for the tree's). The call fails with OracleBroken,
        which no test catches and which fails the test even if it did; the worker stays (its channel is sound), and
        the answer is a `wire` attempt: an honest tree's values cross (big ints as hex, exactly; deep and self-containing
        ones as a graph, oracle_wire._graph). Never a reason for in-process grading: there the same call could answer
        otherwise, and the tree would choose where its test is graded by the shape of its answer (blind round 13, x21/x22/
        x46). depth: how deep the worker found the answer (oracle_worker._chain_depth; its text names it already)."""
        self.attempts.add("wire", what, self.test)
        self.broken.append(what)
        if self.test is not None:
            self.test.broken.append(what)
        raise OracleBroken("isolated oracle: " + what)

    def aborted(self, exc):
        """An interpreter-control exception out of a call (blind round 10, x09): no library's answer to a test's call. It
        fails the call as OracleBroken (raise_remote) and the test with it, even if the test caught it: an `abort` attempt."""
        eb = exc.get("eb") if type(exc) is dict else None
        if eb in ("KeyboardInterrupt", "GeneratorExit"):
            why = "the code under test raised %s out of a call" % eb
            self.attempts.add("abort", why, self.test)
            if self.test is not None:
                self.test.broken.append(why)

    def _garbage(self, what):
        # the worker writes frames only on fds of its own (the tree's prints go to stderr): bytes that are no answer
        # were written into its channel by the code under test (an attempt to answer for the worker)
        self.attempts.add("channel", "the worker's channel carried what its code never writes: " + what, self.test)
        self.void = what
        self._fail("answered garbage: " + what)

    # -- calls
    def request(self, msg):
        with self.lock:
            return self._request(msg)

    def _request(self, msg):
        if self.void is not None:
            raise OracleBroken("isolated oracle: the worker's channel carried a frame its worker did not write (%s): "
                               "no answer of this session is believed" % self.void[:200])
        if self.budget is not None and self.checking:
            self.checks += 1
            if self.checks > CHECKS_PER_TRIP * self.budget and self.test is not None:
                self.over_budget()
        elif self.budget is not None:  # before a worker starts: an init request is no test's
            op = msg.get("op")
            self._spend(msg.get("name") if op == "op" else op)  # an operator by its name: next, getitem, eq...
        if self.proc is None:
            if self.ended:
                raise OracleBroken("isolated oracle: the grading session has ended")
            self._start()
        return self._roundtrip(msg)

    def _spend(self, op):
        self.trips += 1
        self.ops[op] = self.ops.get(op, 0) + 1
        if self.trips > self.budget and self.test is not None:
            self.over_budget()

    def checked(self, check):
        """check(): the oracle's checks of one comparison the test made; it costs the test's budget one round trip."""
        if self.budget is not None:
            self._spend("compare")
        self.checking += 1
        try:
            return check()
        finally:
            self.checking -= 1

    def over_budget(self):
        """The test ran past its budget: it is recorded as needing in-process grading (once), and this and every later
        request of it fails at once, with no round trip, so that it ends soon (a test that catches the exception goes on,
        cheaply). Its verdict comes from the in-process run.
        Unless the isolated rule already refused an "equal" of the tree's objects in this test (unbacked, lenient,
        unstable): in-process that __eq__ would be believed, so the test stays failed here (OracleBroken, which no test
        catches) and the steer is an attempt (budget-steer). An honest tree's comparisons are believed isolated."""
        if self.refused:
            why = ("%s: the test ran past its round trips (%d, %d checking) after the isolated rule refused %d \"equal\" "
                   "of the code under test's objects; not graded in-process, where that __eq__ would be believed"
                   % (BUDGET_REASON, self.trips, self.checks, self.refused))
            if not self.spent:
                self.spent = True
                self.attempts.add("budget-steer", "test %s: %s" % (self.nodeid, why), self.test)
                self.test.broken.insert(0, why)
            raise OracleBroken("isolated oracle: " + why)
        if not self.spent:
            self.spent = True
            top = sorted(self.ops.items(), key=lambda kv: -kv[1])[:3] + ([("checking", self.checks)] if self.checks else [])
            # first: the record keeps a test's first 5 reasons, and this one names the test in roundTripBudget
            self.test.needs.insert(0, "%s: more than %d round trips to the worker (%s)" % (
                BUDGET_REASON, self.budget, ", ".join("%s %d" % kv for kv in top)))
        raise BudgetSpent("%s: the test made more than %d round trips to the code under test's worker"
                          % (BUDGET_REASON, self.budget))

    def start_test(self):
        """A test (or a test module's collection) begins: its budget is whole again."""
        self.trips, self.ops, self.spent = 0, {}, False
        self.checks = self.refused = 0

    def _roundtrip(self, msg, timeout=None):
        with self.lock:  # end() and a worker's start come here without request()
            return self._locked_roundtrip(msg, timeout)

    def _locked_roundtrip(self, msg, timeout):
        self.calls += 1
        self.seq += 1
        q = msg["q"] = self.seq
        if self.sync is not None:  # what the test changed since this worker's last request (nothing: one comparison)
            self.sync.attach(msg, self.gen, self.test)
        w = self.watch
        if w is not None:  # opens before this request: between calls, when only a process the worker left runs the tree
            self.watched("between calls, test %s" % self.nodeid, False)
            w.note(msg)
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        try:
            write_frame(lambda data: self._write(data, deadline), msg)
        except (OSError, ValueError) as e:
            self._fail("could not be written to (%s)" % e)
        ans = self._frame(deadline)
        warned = None
        # what the tree tried (oracle_audit) and the warnings it issued (oracle_worker), then the answer
        while type(ans) is list and len(ans) == 2 and ans[0] in ("audit", "warn", "env"):
            if ans[0] == "audit":
                self.attempts.took(ans[1], self.test)
            elif ans[0] == "env":  # variables the tree set in the call (oracle_env: only its own cross back)
                if self.sync is not None:
                    self.sync.took(ans[1])
            elif type(ans[1]) is list:
                warned = ans[1][:100]
            ans = self._frame(deadline)
        if type(ans) is not list or len(ans) not in (3, 4) or ans[0] not in ("ok", "exc", "wire"):
            self._garbage("%.80r" % (ans,))
        if ans[1] != q:  # an answer to another request: forged, or the worker's own queued behind a forged one
            self._garbage("an answer numbered %.20r to request %d" % (ans[1], q))
        if self._buf:  # the worker writes nothing after its answer until the next request
            self._garbage("%d bytes after the answer to request %d" % (len(self._buf), q))
        if ans[0] == "wire":  # the tree's answer could not be encoded (oracle_worker): never an exception a test catches
            depth = ans[3] if len(ans) == 4 and type(ans[3]) is int else 0  # how deep the answer nests (oracle_worker)
            self.wire_fail("the worker could not send the code under test's answer: %.200s" % (ans[2],), depth)
        if w is not None:  # the kernel queued every open before the worker answered: this call's are all in
            self.watched("in a call (%s %s) of test %s" % (msg.get("op"), msg.get("name") or "", self.nodeid))
        if warned and self.on_warn is not None:
            self.on_warn(warned)
        return [ans[0]] + ans[2:]

    def watched(self, where, in_call=True):
        for _, detail in self.watch.drain(where, in_call, self.nodeid):
            self.attempts.add("test-source", detail, self.test)

    def _frame(self, deadline):
        head = self._read(4, deadline)
        (n,) = struct.unpack(">I", head)
        if n > MAX_FRAME:  # the worker's writer refuses these (oracle_wire.write_frame): not its frame
            self._garbage("a frame of %d bytes" % n)
        try:
            return parse_frame(self._read(n, deadline))
        except WireError as e:
            self._garbage(str(e))

    def _write(self, data, deadline):
        fd = self.proc.wfd
        try:  # the pipe almost always has room: no select first
            data = data[os.write(fd, data):]
        except BlockingIOError:
            pass
        while data:
            left = deadline - time.monotonic()
            if left <= 0:
                self._fail("did not take a request within %g s" % self.timeout)
            _, w, _ = select.select([], [fd], [], left)
            if w:
                try:
                    data = data[os.write(fd, data):]
                except BlockingIOError:
                    pass

    def _read(self, n, deadline):
        # what the worker wrote is read whole into self._buf (the header and the answer come in one read)
        fd = self.proc.rfd
        buf = self._buf
        while len(buf) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                self._fail("did not answer within %g s" % self.timeout)
            if not self._poll.poll(max(1, int(left * 1000 + 1))):
                continue
            try:
                chunk = os.read(fd, max(n - len(buf), 1 << 16))
            except BlockingIOError:
                continue
            if not chunk:
                self._fail("ended (exit status %s)" % self.proc.status())
            buf += chunk
        self._buf = buf[n:]
        return buf[:n]


def raise_remote(exc, dec, mirrors):
    """Raises, in the trusted process, what the worker's exception stands for."""
    eb = exc.get("eb") if isinstance(exc, dict) else None
    if not isinstance(eb, str):
        raise OracleBroken("isolated oracle: the worker answered a malformed exception")
    names = [n for n in exc.get("mro", []) if isinstance(n, str)]
    args = []
    for a in exc.get("args", []):
        try:
            args.append(decode(a, _no_refs))
        except WireError:
            args.append(str(a))
    if eb in ("KeyboardInterrupt", "GeneratorExit"):
        raise OracleBroken("isolated oracle: the code under test raised %s" % eb)
    cls = mirrors.of(names, eb) if names else builtin_exception(eb)
    try:
        e = cls(*args)
    except Exception:  # a library's class (oracle_libexc) whose __init__ takes other than its args: made from its args
        try:
            e = cls.__new__(cls, *args)
            BaseException.__init__(e, *args)
        except Exception:
            e = cls(str(exc.get("msg", "")))
    e.oracle_message = exc.get("msg")
    if not args and type(exc.get("msg")) is str:
        e._oracle_str = exc["msg"]  # read by a mirror's str() only (oracle_libexc._mirror_str)
    set_exc_attrs(e, exc.get("at"), lambda v: decode(v, dec or _no_refs))  # its instance attributes (oracle_excattrs)
    if exc.get("sc") is True:  # `raise ... from None` in the tree: the test may look (cachetools' popitem does)
        e.__suppress_context__ = True
    raise e


def _no_refs(tag):
    raise WireError("an exception argument held a reference")
