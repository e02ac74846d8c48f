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
import builtins
import datetime  # noqa: F401 - the wire's value types, imported before the tree joins sys.path (see oracle_wire)
import decimal  # noqa: F401
import fractions  # noqa: F401
import os
import pathlib  # noqa: F401
import cmath, itertools, math, operator, random, string  # noqa: F401,E401 - what crosses by name (oracle_wire.global_tag)
import select
import struct
import time

from oracle_wire import MAX_FRAME, WireError, decode, encode, parse_frame, write_frame


class OracleBroken(BaseException):
    """The worker died, hung or answered garbage: the call fails, whatever the test expected."""


class NeedsInProcess(Exception):
    """The test does something the split cannot carry (a trusted callable into the tree, a patch of it):
    its verdict must come from in-process grading. Recorded where it is raised (oracle_plugin), so a test that
    catches it is still graded in-process; an Exception, so that pytest's teardown (which lets BaseExceptions
    through and leaves its setup state behind, pytest 7) stays sound."""


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
        self._roundtrip({"op": "init", **(self.init() if callable(self.init) else self.init)})

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

    def _garbage(self, what):
        # the worker writes frames only on fds of its own (the tree's prints go to stderr): bytes that are no answer
        # were written into its channel by the code under test (an attempt to answer for the worker)
        self.attempts.add("channel", "the worker's channel carried what its code never writes: " + what, self.test)
        self.void = what
        self._fail("answered garbage: " + what)

    # -- calls
    def request(self, msg):
        if self.void is not None:
            raise OracleBroken("isolated oracle: the worker's channel carried a frame its worker did not write (%s): "
                               "no answer of this session is believed" % self.void[:200])
        if self.proc is None:
            if self.ended:
                raise OracleBroken("isolated oracle: the grading session has ended")
            self._start()
        return self._roundtrip(msg)

    def _roundtrip(self, msg):
        self.calls += 1
        self.seq += 1
        q = msg["q"] = self.seq
        w = self.watch
        if w is not None:  # opens before this request: between calls, when only a process the worker left runs the tree
            self.watched("between calls, test %s" % self.nodeid, False)
            w.note(msg)
        deadline = time.monotonic() + self.timeout
        try:
            write_frame(lambda data: self._write(data, deadline), msg)
        except (OSError, ValueError) as e:
            self._fail("could not be written to (%s)" % e)
        ans = self._frame(deadline)
        warned = None
        # what the tree tried (oracle_audit) and the warnings it issued (oracle_worker), then the answer
        while type(ans) is list and len(ans) == 2 and ans[0] in ("audit", "warn"):
            if ans[0] == "audit":
                self.attempts.took(ans[1], self.test)
            elif type(ans[1]) is list:
                warned = ans[1][:100]
            ans = self._frame(deadline)
        if type(ans) is not list or len(ans) not in (3, 4) or ans[0] not in ("ok", "exc"):
            self._garbage("%.80r" % (ans,))
        if ans[1] != q:  # an answer to another request: forged, or the worker's own queued behind a forged one
            self._garbage("an answer numbered %.20r to request %d" % (ans[1], q))
        if self._buf:  # the worker writes nothing after its answer until the next request
            self._garbage("%d bytes after the answer to request %d" % (len(self._buf), q))
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


class Attempts:
    """The worker's audit events (oracle_audit), kept for the record: only known kinds, bounded, deduplicated.
    The worker is untrusted: what it reports can only add findings, never change a verdict."""
    # Kinds the worker reports (mapped to detectors by OracleAttempts.java); the trusted side adds eq-lenient,
    # eq-unbacked and eq-unstable (oracle_eq) and channel (above):
    #   test-source   a masked trusted test file opened (the box binds /dev/null over each: a char device)
    #   proc          /proc of another process, or this one's mounts, memory or environment
    #   outside       a path beside or above the tree the box does not show (results, hidden tests, manifest)
    #   frame         a worker frame beyond the call's own taken or read by the tree, the caller's locals read or its globals
    #                 searched (a trace or profile function is none: here it sees only the worker's frames and the tree's)
    #   gc            gc.get_objects / get_referrers by the tree (a walk for objects it was not handed)
    #   ctypes        raw memory or the interpreter's C API through ctypes
    #   signal        a signal to a process that is not this one (its box's init, a parent, a group)
    #   audit-hook    the tree adds an audit hook of its own (it would see every compiled source)
    #   import-hook   an import hook the tree put before the path finder in sys.meta_path, or in sys.path_hooks
    #   runner        the tree itself imports the test runner's internals (_pytest.*, pluggy)
    #   bytecode      a .pyc of the tree that Python runs unchecked against its source (hash-based, unchecked)
    #   reexec        the worker's own process replaced by os.exec* (sent at once: the worker never answers again)
    #   command       a command the tree spawns, or a .git path it opens: the trusted side applies the monitor's command rules
    #   worker        the tree rebound a function of the worker's own (a frame writer that drops these reports, say): they
    #                 go out through the writer captured here
    #   exhaust       the tree holds most of the file table (_A_FDS): the trusted side shares its limits and scratch
    #   wire          an answer nested far past what the wire carries (a decoder bomb; oracle_worker reports it)
    KINDS = ("test-source", "proc", "outside", "frame", "gc", "ctypes", "signal", "audit-hook", "import-hook",
             "runner", "command", "dropped", "eq-lenient", "bytecode", "reexec", "worker", "channel", "exhaust", "wire")
    MAX = 100

    def __init__(self):
        self.items, self.seen = [], set()

    def took(self, events, rec=None):
        for e in events if type(events) is list else []:
            if type(e) is list and len(e) == 2 and e[0] in self.KINDS and type(e[1]) is str:
                self.add(e[0], e[1], rec)

    def add(self, kind, detail, rec=None):
        key = (kind, detail[:120])
        if key in self.seen or len(self.items) >= self.MAX:
            return
        self.seen.add(key)
        self.items.append({"kind": kind, "detail": detail[:300], "during": "test" if rec is not None else "session"})


def builtin_exception(name):
    c = getattr(builtins, name, None)
    return c if isinstance(c, type) and issubclass(c, BaseException) else Exception


class Mirrors:
    """Local stand-ins for the tree's exception classes, by qualified name, so that pytest.raises(calc.Err)
    and except clauses in tests match what the worker raised; their hierarchy follows the tree's."""

    def __init__(self):
        self.by_name = {}

    def of(self, names, base_name):
        """names: the class and its non-builtin ancestors, nearest first; base_name: the builtin base."""
        base = builtin_exception(base_name)
        if base in (KeyboardInterrupt, GeneratorExit):
            base = Exception
        cls = None
        for n in reversed(names):
            got = self.by_name.get(n)
            if got is None:
                mod, _, qual = n.rpartition(":")
                bases = (cls, base) if cls is not None and not issubclass(cls, base) else (cls or base,)
                try:
                    got = type(qual.rpartition(".")[2] or "RemoteError", bases,
                               {"__module__": mod, "__qualname__": qual, "_oracle_name": n})
                except TypeError:  # builtin bases whose layouts conflict: the nearest one wins
                    got = type(qual.rpartition(".")[2] or "RemoteError", (cls or base,),
                               {"__module__": mod, "__qualname__": qual, "_oracle_name": n})
                self.by_name[n] = got
            cls = got
        return cls


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
    except Exception:
        e = cls(str(exc.get("msg", "")))
    e.oracle_message = exc.get("msg")
    if exc.get("sc") is True:  # `raise ... from None` in the tree: the test may look (cachetools' popitem does)
        e.__suppress_context__ = True
    raise e


def _no_refs(tag):
    raise WireError("an exception argument held a reference")


def encode_arg(v, ref_of):
    return encode(v, ref_of)
