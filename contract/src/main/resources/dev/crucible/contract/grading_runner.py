"""Crucible's grading runner: the command of a rollout pod's grading container (and, with --mode agent,
of an interactive pod's agent-exec container).

Runs, from the environment's own image, only what the verifier sidecar asks it to grade. It connects
once to the sidecar's socket (the sidecar then removes it) and reads one JSON request per line
({"op": "exec", "argv", "cwd", "env", "clearEnv", "timeoutMs", "maxOutputBytes", "stdin", "mergeStderr",
"channel", "writable", "readOnly"}); it answers {"pid"} when the command started, {"channel": BASE64} for
what the command wrote on its fd 3 (an anonymous pipe: no path to open it by), then {"result"}.
After each command every other process of the container (or every descendant, when not PID 1) is
killed and /tmp emptied. Where user namespaces work, each command runs in its own bubblewrap box; where
they do not, each command runs under a seccomp filter that refuses every socket but AF_UNIX and netlink
(and io_uring), so graded code reaches no network, neither the sidecar's API on the pod's loopback.
With --mode agent it runs an interactive agent's commands instead: in the workspace, with the container's
own environment under the request's variables, no box (the container is the agent's sandbox), its scratch
folder kept between commands; while a command runs it reports the processes of the container
({"procs": [{"pid", "ppid", "start", "cmd", "fds"}]}) every "sampleMs" so the sidecar's monitor sees them,
and {"op": "kill"} (during a command, or between commands: answered {"killed": N}) kills them all.
Standard library only, Python 3.8+, run as `python3 -I -S` (sidecar-verifier/README.md).
"""
import base64
import errno
import json
import os
import platform
import selectors
import shutil
import signal
import socket
import struct
import subprocess
import sys
import time

KEEP = ("LANG", "LC_ALL", "TZ")
MODES = ("grading", "agent")
FDS_PER_PROCESS = 64  # what a sample reports of one process: enough for a reader of hidden files or a socket
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


# seccomp (linux/seccomp.h, linux/filter.h): the native arch, its socket(2) number; io_uring is refused
# everywhere since its requests (IORING_OP_SOCKET, _CONNECT) bypass the socket filter.
SECCOMP_ARCHES = {"x86_64": (0xC000003E, 41), "aarch64": (0xC00000B7, 198)}
IO_URING_CALLS = (425, 426, 427)
SOCKET_FAMILIES_ALLOWED = (1, 16)  # AF_UNIX, AF_NETLINK (getaddrinfo's interface query; reaches nothing)
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
RET_ALLOW, RET_ERRNO = 0x7FFF0000, 0x00050000


def network_program():
    """(BPF bytes, None) for this machine's arch, else (None, why)."""
    arch = SECCOMP_ARCHES.get(platform.machine())
    if arch is None:
        return None, "no seccomp program for %s" % platform.machine()
    audit_arch, sys_socket = arch
    ld, jeq, jge, ret = 0x20, 0x15, 0x35, 0x06
    code = [  # (op, k, jump-if-true label, jump-if-false label); None falls through
        (ld, 4, None, None),                                 # seccomp_data.arch
        (jeq, audit_arch, None, "eperm"),                    # another ABI (int 0x80 on x86_64): refused
        (ld, 0, None, None),                                 # seccomp_data.nr
        (jge, 0x40000000, "eperm", None),                    # the x32 ABI
        (jeq, sys_socket, "family", None)] + [
        (jeq, n, "eacces", None) for n in IO_URING_CALLS] + [
        (ret, RET_ALLOW, None, None),
        ("family", ld, 16, None, None),                      # args[0], low half (little-endian)
        (jeq, SOCKET_FAMILIES_ALLOWED[0], "allow", None),
        (jeq, SOCKET_FAMILIES_ALLOWED[1], "allow", "eacces"),
        ("allow", ret, RET_ALLOW, None, None),
        ("eacces", ret, RET_ERRNO | errno.EACCES, None, None),
        ("eperm", ret, RET_ERRNO | errno.EPERM, None, None)]
    labels = {c[0]: i for i, c in enumerate(code) if isinstance(c[0], str)}
    out = b""
    for i, c in enumerate(code):
        op, k, t, f = c[1:] if isinstance(c[0], str) else c
        jt = labels[t] - i - 1 if t else 0
        jf = labels[f] - i - 1 if f else 0
        out += struct.pack("=HBBI", op, jt, jf, k)  # struct sock_filter
    return out, None


def network_guard():
    """A preexec function that installs the filter in the child, or (None, why) when it cannot work here."""
    prog, why = network_program()
    if prog is None:
        return None, why
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)

        class Fprog(ctypes.Structure):
            _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
        buf = ctypes.create_string_buffer(prog, len(prog))
        fprog = Fprog(len(prog) // 8, ctypes.addressof(buf))
    except Exception as e:
        return None, "ctypes unavailable: %s" % e

    def install():  # runs in the child between fork and exec: nothing allocated here that could fail
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "seccomp filter refused")
    install.keep = (buf, fprog)
    # a child under the filter must be refused an inet socket and still get a unix one
    check = "import socket, sys\ntry:\n socket.socket()\nexcept PermissionError:\n socket.socket(socket.AF_UNIX)\n sys.exit(0)\nsys.exit(3)"
    try:
        r = subprocess.run([sys.executable, "-I", "-S", "-c", check], preexec_fn=install, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=30)
    except (OSError, subprocess.SubprocessError) as e:
        return None, "seccomp filter could not be installed: %s" % e
    if r.returncode != 0:
        return None, "seccomp filter did not hold (exit %d): %s" % (r.returncode, r.stderr.decode("utf-8", "replace")[-300:])
    return install, None


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


def stat_of(pid):
    """(ppid, start ticks) of pid, or None when it is gone."""
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            rest = f.read().decode("ascii", "replace")
        rest = rest[rest.rindex(")") + 2:].split()
        return int(rest[1]), int(rest[19])
    except (OSError, ValueError, IndexError):
        return None


def fd_targets(pid):
    """Files and sockets pid holds open (pipes, terminals and /dev are of no interest to the monitor)."""
    out = []
    try:
        names = os.listdir("/proc/%d/fd" % pid)
    except OSError:
        return out
    for n in names:
        try:
            t = os.readlink("/proc/%d/fd/%s" % (pid, n))
        except OSError:
            continue
        if t.startswith("socket:[") or (t.startswith("/") and not t.startswith("/dev/")):
            out.append(t)
            if len(out) >= FDS_PER_PROCESS:
                break
    return out


def cmdline_of(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return f.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
    except OSError:
        return ""


class Runner:
    def __init__(self, conn, scratch_root, bwrap, mode="grading", guard=None):
        self.conn = conn
        self.scratch_root = scratch_root
        self.bwrap = bwrap
        self.guard = guard  # the no-network preexec function when there is no box
        self.mode = mode
        self.count = 0
        self.devnull = reserve_fd3()
        self.pending = bytearray()  # bytes read from the sidecar, not yet a whole line
        self.seen = {}  # (pid, start) -> the command line last reported for it

    def send(self, obj):
        self.conn.sendall((json.dumps(obj) + "\n").encode("utf-8"))

    def next_line(self, block=True):
        """The sidecar's next line; None at its end (or, not blocking, when no whole line is here yet)."""
        while b"\n" not in self.pending:
            if not block:
                return None
            data = self.conn.recv(65536)
            if not data:
                return None
            self.pending += data
        i = self.pending.index(b"\n")
        line = bytes(self.pending[:i])
        del self.pending[:i + 1]
        return line

    def serve(self):
        while True:
            line = self.next_line()
            if line is None:
                return
            if not line.strip():
                continue
            try:
                req = json.loads(line)
                if req.get("op") == "kill":
                    self.send({"killed": self.kill_all()})
                    continue
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
        scratch = self.scratch_root
        if self.mode == "grading":  # a fresh folder per graded command; an agent's steps share their scratch
            scratch = os.path.join(self.scratch_root, "crucible-cmd-%d" % self.count)
            os.makedirs(scratch, mode=0o700, exist_ok=True)
        try:
            return self._run(req, scratch)
        finally:
            clean = sweep()
            if self.mode == "grading":
                empty_dir(self.scratch_root)  # the next command finds a fresh /tmp; an agent keeps its scratch
            if not clean:
                log("processes of command %d survived the sweep" % self.count)

    def kill_all(self):
        n = len(others(os.getpid()))
        sweep()
        return n

    def sample(self):
        """The container's processes now (our descendants when we are not PID 1), a command line whenever it
        is new for that process: a child sampled between fork and exec still shows its parent's, and the
        command it then execs (same pid, same start) must not go unreported."""
        procs, alive = [], set()
        for pid in others(os.getpid()):
            st = stat_of(pid)
            if st is None:
                continue
            alive.add((pid, st[1]))
            entry = {"pid": pid, "ppid": st[0], "start": st[1], "fds": fd_targets(pid)}
            cmd = cmdline_of(pid)
            if cmd and self.seen.get((pid, st[1])) != cmd:
                self.seen[(pid, st[1])] = cmd
                entry["cmd"] = cmd
            if "cmd" in entry or entry["fds"]:
                procs.append(entry)
        self.seen = {k: v for k, v in self.seen.items() if k in alive}  # bounded by what runs now
        if procs:
            self.send({"procs": procs})

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
                                    stderr=subprocess.STDOUT if merge else subprocess.PIPE,
                                    preexec_fn=None if self.bwrap else self.guard)
        except (OSError, subprocess.SubprocessError) as e:
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
        agent = self.mode == "agent"
        sample_every = int(req.get("sampleMs") or 0) / 1000.0 if agent else 0
        next_sample = [time.monotonic()]
        killed = [False]
        if agent:  # the sidecar may ask for a kill while the command runs (its hack policy terminated the episode)
            sel.register(self.conn, selectors.EVENT_READ, "control")
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
                if what == "control":
                    try:
                        data = self.conn.recv(65536)
                    except (BlockingIOError, InterruptedError):
                        continue
                    if not data:  # the sidecar is gone: nothing of the agent may run on
                        sel.unregister(self.conn)
                        killed[0] = True
                        continue
                    self.pending += data
                    continue
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

        def control():
            while True:
                line = self.next_line(block=False)
                if line is None:
                    return
                try:
                    killed[0] = killed[0] or json.loads(line).get("op") == "kill"
                except ValueError:
                    pass

        timed_out = False
        while proc.poll() is None:
            if time.monotonic() >= deadline:
                timed_out = True
                break
            if sample_every and time.monotonic() >= next_sample[0]:
                self.sample()
                next_sample[0] = time.monotonic() + sample_every
            if agent:
                control()
            if killed[0]:
                break
            pump(min(0.1, max(0.0, deadline - time.monotonic()), max(0.0, next_sample[0] - time.monotonic()) if sample_every else 0.1))
        if sample_every:
            self.sample()  # what the command leaves behind is seen before it dies
        if timed_out or killed[0]:
            proc.kill()
            proc.wait()
        if agent and self.conn in [k.fileobj for k in sel.get_map().values()]:
            sel.unregister(self.conn)
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
    sock, wait, scratch, use_box, mode = None, 900.0, None, True, "grading"
    i = 0
    while i < len(args):
        a, v, i = args[i], args[i + 1] if i + 1 < len(args) else None, i + 2
        if a == "--socket" and v is not None:
            sock = v
        elif a == "--wait-seconds" and v is not None:
            wait = float(v)
        elif a == "--scratch" and v is not None:
            scratch = v
        elif a == "--mode" and v in MODES:
            mode = v
        elif a == "--no-box":
            use_box, i = False, i - 1
        else:
            raise SystemExit("crucible-grading-runner: unexpected argument '%s' (usage: --socket PATH "
                             "[--wait-seconds S] [--scratch DIR] [--no-box] [--mode grading|agent])" % a)
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
    guard, net_problem = None, None
    if mode == "agent":  # the agent-exec container is the agent's sandbox; its network is the pod's, as the agent's
        bwrap, problem = None, "agent mode: the container is the box"
        net_problem = "agent mode: the pod's network, as the agent's"
    else:
        bwrap, problem = probe_box() if use_box else (None, "disabled (--no-box)")
        if bwrap is None:  # no network namespace of its own: keep graded code off the pod's network by seccomp
            guard, net_problem = network_guard()
    conn = connect(sock, wait)
    hello = {"hello": 1, "pid": os.getpid(), "python": sys.executable, "version": sys.version.split()[0],
             "box": "bwrap" if bwrap else None, "boxProblem": problem, "mode": mode,
             "network": "box" if bwrap else ("seccomp" if guard else None), "networkProblem": net_problem}
    hello.update(hardening)
    log(json.dumps(hello))
    runner = Runner(conn, scratch, bwrap, mode, guard)
    runner.send(hello)
    try:
        runner.serve()
    except (BrokenPipeError, ConnectionResetError):
        pass
    sweep()
    return 0  # the sidecar closed the connection: grading is over


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
