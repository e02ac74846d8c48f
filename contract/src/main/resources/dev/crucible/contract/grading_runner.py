"""Crucible's grading runner: the command of a rollout pod's grading container.

Runs, from the environment's own image, only what the verifier sidecar asks it to grade. It connects
once to the sidecar's socket (the sidecar then removes it) and reads one JSON request per line
({"op": "exec", "argv", "cwd", "env", "clearEnv", "timeoutMs", "maxOutputBytes", "stdin", "mergeStderr",
"channel", "writable", "readOnly"}); it answers {"pid"} when the command started, {"channel": BASE64} for
what the command wrote on its fd 3 (an anonymous pipe: no path to open it by), then {"result"}.
After each command every other process of the container (or every descendant, when not PID 1) is
killed and /tmp emptied. Where user namespaces work, each command runs in its own bubblewrap box.
Standard library only, Python 3.8+, run as `python3 -I -S` (sidecar-verifier/README.md).
"""
import base64
import json
import os
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import time

KEEP = ("LANG", "LC_ALL", "TZ")
CHANNEL_LIMIT = 64 << 20  # more than any honest report; the rest is dropped and the sidecar told
DRAIN_GRACE = 2.0  # seconds to read what is left after the command's processes were killed
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36


def log(msg):
    sys.stderr.write("crucible-grading-runner: " + msg + "\n")
    sys.stderr.flush()


def harden():
    """Non-dumpable: no process of our uid can ptrace us or open /proc/<us>/fd. Subreaper: orphans stay ours."""
    state = {"dumpable": True, "subreaper": os.getpid() == 1}
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0:
            state["dumpable"] = False
        if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0:
            state["subreaper"] = True
    except Exception as e:  # no ctypes in this image: say so in the hello
        state["problem"] = "prctl unavailable: %s" % e
    return state


def probe_box():
    """(bwrap path, None) when a box can be made here, else (None, why)."""
    bwrap = shutil.which("bwrap", path="/usr/local/bin:/usr/bin:/bin")
    if bwrap is None:
        return None, "no bwrap in the image"
    try:
        r = subprocess.run([bwrap, "--unshare-all", "--unshare-user", "--die-with-parent", "--ro-bind", "/", "/",
                            "--proc", "/proc", "--dev", "/dev", "--", "/bin/true"],
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, "bwrap did not run: %s" % e
    if r.returncode != 0:
        return None, "bwrap cannot make a box here: " + r.stdout.decode("utf-8", "replace").strip()[-300:]
    return bwrap, None


def box_argv(bwrap, argv, cwd, scratch, writable, read_only):
    b = [bwrap, "--unshare-all", "--unshare-user", "--cap-drop", "ALL", "--die-with-parent", "--new-session",
         "--hostname", "crucible", "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
         "--bind", scratch, scratch]
    for w in writable:
        if os.path.isdir(w):
            b += ["--bind", w, w]
    for r in read_only:
        if os.path.exists(r):
            b += ["--ro-bind", r, r]
    return b + ["--chdir", cwd, "--"] + list(argv)


def connect(path, wait):
    deadline = time.monotonic() + wait
    last = None
    while time.monotonic() < deadline:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
            return s
        except OSError as e:
            last = e
            s.close()
            time.sleep(0.2)
    raise SystemExit("crucible-grading-runner: the sidecar's socket %s never answered in %ss: %s" % (path, wait, last))


def all_pids():
    return [int(n) for n in os.listdir("/proc") if n.isdigit()]


def parent_of(pid):
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            stat = f.read().decode("ascii", "replace")
        return int(stat[stat.rindex(")") + 2:].split()[1])
    except (OSError, ValueError, IndexError):
        return -1


def others(me):
    """Processes to kill: in our own PID namespace (we are 1) all but us, else our descendants."""
    pids = [p for p in all_pids() if p != me]
    if me == 1:
        return pids
    parents = {p: parent_of(p) for p in pids}
    found, frontier = set(), {me}
    while frontier:
        frontier = {p for p, pp in parents.items() if pp in frontier and p not in found}
        found |= frontier
    return sorted(found)


def reap():
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def sweep():
    """SIGKILL until nothing is left; False when something survived a second's worth of tries."""
    me = os.getpid()
    for _ in range(200):
        victims = others(me)
        if not victims:
            return True
        for p in victims:
            try:
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass
        reap()
        time.sleep(0.005)
    reap()
    return not others(me)


def mount_points():
    try:
        with open("/proc/self/mountinfo", "rb") as f:
            return [line.split()[4].decode("utf-8", "replace") for line in f if len(line.split()) > 4]
    except OSError:
        return []


def empty_dir(d):
    """Removes what commands left in d, never anything under a mount point (a volume mounted below it)."""
    try:
        names = os.listdir(d)
    except OSError:
        return
    mounts = mount_points()
    for n in names:
        p = os.path.join(d, n)
        if any(m == p or m.startswith(p + "/") for m in mounts):
            continue
        try:
            if os.path.isdir(p) and not os.path.islink(p):
                shutil.rmtree(p, ignore_errors=True)
            else:
                os.unlink(p)
        except OSError:
            pass


_DEVNULL = []


def reserve_fd3():
    """fd 3 is kept for the result channel: /dev/null holds it from the start, so no socket or file takes it."""
    if not _DEVNULL:
        fd = os.open(os.devnull, os.O_RDWR)
        while fd < 3:  # stdin/out/err were closed: fill them too
            fd = os.open(os.devnull, os.O_RDWR)
        if fd != 3:
            os.dup2(fd, 3)
        _DEVNULL.append(fd if fd != 3 else os.dup(3))
    return _DEVNULL[0]


class Runner:
    def __init__(self, conn, scratch_root, bwrap):
        self.conn = conn
        self.scratch_root = scratch_root
        self.bwrap = bwrap
        self.count = 0
        self.devnull = reserve_fd3()

    def send(self, obj):
        self.conn.sendall((json.dumps(obj) + "\n").encode("utf-8"))

    def serve(self):
        reader = self.conn.makefile("rb")
        for line in reader:
            try:
                req = json.loads(line)
                if req.get("op") != "exec" or not req.get("argv"):
                    self.send({"error": "op: expected exec with an argv"})
                    continue
            except ValueError as e:
                self.send({"error": "bad request: %s" % e})
                continue
            try:
                result = self.run(req)
            except Exception as e:  # a request this runner cannot carry out fails that command, not grading's channel
                self.send({"error": "%s: %s" % (type(e).__name__, e)})
                continue
            self.send({"result": result})

    def run(self, req):
        self.count += 1
        scratch = os.path.join(self.scratch_root, "crucible-cmd-%d" % self.count)
        os.makedirs(scratch, mode=0o700, exist_ok=True)
        try:
            return self._run(req, scratch)
        finally:
            clean = sweep()
            empty_dir(self.scratch_root)  # the next command finds a fresh /tmp
            if not clean:
                log("processes of command %d survived the sweep" % self.count)

    def _run(self, req, scratch):
        env = {k: os.environ[k] for k in KEEP if k in os.environ} if req.get("clearEnv") else dict(os.environ)
        env.update(req.get("env") or {})
        cwd = req.get("cwd")
        if not cwd or not os.path.isdir(cwd):
            cwd = scratch  # not a grading tree (the interpreter probe): a place of its own
        argv = list(req["argv"])
        if self.bwrap:
            argv = box_argv(self.bwrap, argv, cwd, scratch, req.get("writable") or [], req.get("readOnly") or [])
        channel_r = None
        if req.get("channel"):
            channel_r, channel_w = os.pipe()
            os.dup2(channel_w, 3)
            os.close(channel_w)
        merge = bool(req.get("mergeStderr"))
        stdin = req.get("stdin")
        start = time.monotonic()
        try:
            proc = subprocess.Popen(argv, cwd=cwd, env=env, start_new_session=True, pass_fds=(3,) if channel_r is not None else (),
                                    stdin=subprocess.PIPE if stdin else subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT if merge else subprocess.PIPE)
        except OSError as e:
            return {"exitCode": 127, "stdout": "", "stderr": "cannot start %s: %s" % (argv[0], e), "truncated": False,
                    "timedOut": False, "elapsedMs": 0, "pid": -1}
        finally:
            os.dup2(self.devnull, 3)  # our copy of the write end is gone: EOF comes when the command's copies close
        self.send({"pid": proc.pid})
        return self._io(req, proc, channel_r, stdin, start)

    def _io(self, req, proc, channel_r, stdin, start):
        limit = int(req.get("maxOutputBytes") or 65536)
        deadline = start + int(req.get("timeoutMs") or 60000) / 1000.0
        out = {"stdout": bytearray(), "stderr": bytearray()}
        truncated = [False]
        sent = [0, False]  # channel bytes relayed, overflow
        sel = selectors.DefaultSelector()
        sel.register(proc.stdout, selectors.EVENT_READ, "stdout")
        if proc.stderr is not None:
            sel.register(proc.stderr, selectors.EVENT_READ, "stderr")
        if channel_r is not None:
            os.set_blocking(channel_r, False)
            sel.register(channel_r, selectors.EVENT_READ, "channel")
        pending = None
        if stdin:
            os.set_blocking(proc.stdin.fileno(), False)
            sel.register(proc.stdin, selectors.EVENT_WRITE, "stdin")
            pending = memoryview(stdin.encode("utf-8"))
        elif proc.stdin is not None:
            proc.stdin.close()

        def pump(wait):
            nonlocal pending
            for key, _ in sel.select(wait):
                what = key.data
                if what == "stdin":
                    try:
                        n = os.write(key.fd, pending)
                        pending = pending[n:]
                    except (BlockingIOError, InterruptedError):
                        continue
                    except OSError:
                        pending = pending[:0]
                    if not pending:
                        sel.unregister(key.fileobj)
                        key.fileobj.close()
                    continue
                try:
                    data = os.read(key.fd, 65536)
                except (BlockingIOError, InterruptedError):
                    continue
                if not data:
                    sel.unregister(key.fileobj)
                    if what == "channel":
                        os.close(key.fd)
                    continue
                if what == "channel":
                    room = CHANNEL_LIMIT - sent[0]
                    if room > 0:
                        self.send({"channel": base64.b64encode(data[:room]).decode("ascii")})
                    sent[0] += len(data)
                    sent[1] = sent[1] or len(data) > room
                else:
                    buf = out[what]
                    room = limit - len(buf)
                    if room > 0:
                        buf += data[:room]
                    if len(data) > room:
                        truncated[0] = True

        timed_out = False
        while proc.poll() is None:
            if time.monotonic() >= deadline:
                timed_out = True
                break
            pump(min(0.1, max(0.0, deadline - time.monotonic())))
        if timed_out:
            proc.kill()
            proc.wait()
        sweep()  # whatever the command left running dies before its results are read to the end
        end = time.monotonic() + DRAIN_GRACE
        while any(k.data != "stdin" for k in sel.get_map().values()) and time.monotonic() < end:
            pump(0.05)
        channel_open = any(k.data == "channel" for k in sel.get_map().values())
        for key in list(sel.get_map().values()):
            sel.unregister(key.fileobj)
            if key.data == "channel":
                os.close(key.fd)
        for f in (proc.stdout, proc.stderr, proc.stdin):
            if f is not None:
                try:
                    f.close()
                except OSError:
                    pass
        code = -1 if timed_out else proc.returncode
        if code < -1:
            code = 128 - code  # killed by a signal: the shell's convention, as Java reports it
        return {"exitCode": code, "stdout": out["stdout"].decode("utf-8", "replace"),
                "stderr": out["stderr"].decode("utf-8", "replace"), "truncated": truncated[0], "timedOut": timed_out,
                "elapsedMs": int((time.monotonic() - start) * 1000), "pid": proc.pid,
                "channelOpen": channel_open, "channelOverflow": sent[1], "channelBytes": sent[0]}


def main(args):
    sock, wait, scratch, use_box = None, 900.0, None, True
    i = 0
    while i < len(args):
        a, v, i = args[i], args[i + 1] if i + 1 < len(args) else None, i + 2
        if a == "--socket" and v is not None:
            sock = v
        elif a == "--wait-seconds" and v is not None:
            wait = float(v)
        elif a == "--scratch" and v is not None:
            scratch = v
        elif a == "--no-box":
            use_box, i = False, i - 1
        else:
            raise SystemExit("crucible-grading-runner: unexpected argument '%s' (usage: --socket PATH "
                             "[--wait-seconds S] [--scratch DIR] [--no-box])" % a)
    if sock is None:
        raise SystemExit("crucible-grading-runner: --socket PATH: required")
    # Python's SIGINT handler would let a graded process interrupt us; as PID 1 with default
    # dispositions nothing inside the container can signal us at all.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    reserve_fd3()
    if scratch is None:  # emptied after every command: only a folder of our own unless told (the container's /tmp)
        import tempfile
        scratch = tempfile.mkdtemp(prefix="crucible-grading-")
    hardening = harden()
    bwrap, problem = probe_box() if use_box else (None, "disabled (--no-box)")
    conn = connect(sock, wait)
    hello = {"hello": 1, "pid": os.getpid(), "python": sys.executable, "version": sys.version.split()[0],
             "box": "bwrap" if bwrap else None, "boxProblem": problem}
    hello.update(hardening)
    log(json.dumps(hello))
    runner = Runner(conn, scratch, bwrap)
    runner.send(hello)
    try:
        runner.serve()
    except (BrokenPipeError, ConnectionResetError):
        pass
    sweep()
    return 0  # the sidecar closed the connection: grading is over


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
