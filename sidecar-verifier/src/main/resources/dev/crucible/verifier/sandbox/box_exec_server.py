# The exec server of an episode's persistent box (BoxSession): started once, inside the box, by the same
# launcher as a per-step box, it runs each step's command as its own child and answers over its stdin/stdout,
# pipes that only the JVM holds. A step's command never gets them (close_fds, its own stdio); the server is made
# non-dumpable, so that nothing in the box (no capabilities) can open them through /proc/<pid>/fd or ptrace it.
# It is the box's PID 1 (bwrap --as-pid-1): the kernel delivers no signal from inside the namespace to its init
# unless init handles it, and this one handles none, so a step's kill -9 -1 or pkill python cannot end it. As init
# it also reaps what the steps orphaned. Whatever it answers, the JVM bounds and checks again (output size, the
# cgroup's members): a command that subverts it gains nothing the box did not already give it, and a server that
# dies all the same (killed from the host) ends the box.
#
# One JSON line per request: {"argv", "cwd", "env", "timeout" (s), "max" (bytes per stream), "stdin", "merge"}.
# Answers: {"started": pid} as soon as the child exists, then {"exit", "timedOut", "out", "err" (base64),
# "truncated", "left"}. After the command ends (or its timeout), its process group and then every other
# process of the box's PID namespace are killed: kill(-1) from its init reaches every process in it, setsid'd or
# in a nested namespace too.
import base64
import json
import os
import selectors
import signal
import subprocess
import sys
import time

CTL_IN = sys.stdin.buffer
CTL_OUT = sys.stdout.buffer


def send(obj):
    CTL_OUT.write(json.dumps(obj).encode() + b"\n")
    CTL_OUT.flush()


def nondumpable():
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
        return libc.prctl(3, 0, 0, 0, 0)  # PR_GET_DUMPABLE
    except Exception:  # noqa: BLE001 - reported to the JVM, which then refuses this server
        return -1


def others():
    me = os.getpid()
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) in (1, me):  # me is 1: the box's init
            continue
        try:
            with open("/proc/" + d + "/stat", "rb") as f:
                state = f.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if state != b"Z":  # a zombie is already dead; reap() collects it
            out.append(int(d))
    return out


def sweep():
    """Kills every process of the box but this one (its init); returns how many are still there after 2 s."""
    if os.getpid() != 1:  # kill(-1) is the box's only as its init: anywhere else it reaches every process of the user
        raise RuntimeError("sweep: kill(-1) refused: this process is not PID 1 of a namespace of its own")
    end = time.monotonic() + 2
    while True:
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            pass
        left = others()
        if not left or time.monotonic() > end:
            return len(left)
        time.sleep(0.001)


def reap():
    """Collects every exited child, the steps' orphans included (they are this init's)."""
    while True:
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                return
        except ChildProcessError:
            return


def run(req):
    cap = int(req["max"])
    merge = bool(req.get("merge"))
    data = req.get("stdin")
    try:
        p = subprocess.Popen(req["argv"], cwd=req["cwd"], env=req["env"], start_new_session=True, close_fds=True,
                             stdin=subprocess.PIPE if data else subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT if merge else subprocess.PIPE)
    except OSError as e:
        code = 127 if isinstance(e, FileNotFoundError) and e.filename == req["argv"][0] else 126
        msg = "cannot start " + str(req["argv"][0]) + ": " + str(e) + "\n"
        left = sweep()
        reap()
        return {"exit": code, "timedOut": False, "out": "", "err": base64.b64encode(msg.encode()).decode(),
                "truncated": False, "left": left}
    send({"started": p.pid})
    if data:
        try:
            p.stdin.write(data.encode())
        except OSError:
            pass  # the command did not read its input: its business
        try:
            p.stdin.close()
        except OSError:
            pass
    kept = {}
    over = {}
    sel = selectors.DefaultSelector()
    for f in (p.stdout, p.stderr):
        if f is not None:
            os.set_blocking(f.fileno(), False)
            sel.register(f.fileno(), selectors.EVENT_READ)
            kept[f.fileno()] = bytearray()
            over[f.fileno()] = False
    try:
        pidfd = os.pidfd_open(p.pid)
        sel.register(pidfd, selectors.EVENT_READ)
    except (AttributeError, OSError):
        pidfd = None

    def read(fd):
        try:
            b = os.read(fd, 65536)
        except BlockingIOError:
            return True
        except OSError:
            b = b""
        if not b:
            sel.unregister(fd)
            return False
        room = cap - len(kept[fd])
        if room > 0:
            kept[fd] += b[:room]
        if len(b) > room:
            over[fd] = True
        return True

    deadline = time.monotonic() + float(req["timeout"])
    timed_out = False
    while p.poll() is None:
        rem = deadline - time.monotonic()
        if rem <= 0:
            timed_out = True
            break
        for key, _ in sel.select(rem if pidfd is not None else min(rem, 0.005)):
            if key.fd != pidfd:
                read(key.fd)
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except OSError:
        pass
    left = sweep()
    p.wait()  # before reap(): the step's own status must be Popen's, not reap()'s
    reap()
    if pidfd is not None:
        sel.unregister(pidfd)
        os.close(pidfd)
    end = time.monotonic() + 2  # every writer is dead: the pipes reach their end at once
    while sel.get_map() and time.monotonic() < end:
        for key, _ in sel.select(0.05):
            read(key.fd)
    sel.close()
    rc = p.returncode
    code = -1 if timed_out else (rc if rc >= 0 else 128 - rc)
    fds = list(kept)
    out = bytes(kept[fds[0]])
    err = bytes(kept[fds[1]]) if len(fds) > 1 else b""
    return {"exit": code, "timedOut": timed_out, "out": base64.b64encode(out).decode(), "err": base64.b64encode(err).decode(),
            "truncated": any(over.values()), "left": left}


def main():
    if os.getpid() != 1:  # kill(-1) outside a PID namespace of its own would reach every process of the user
        sys.stderr.write("box_exec_server: not the init of a PID namespace of its own; refusing to run\n")
        sys.exit(3)
    # No handler at all: a signal from inside the box then never reaches this init (SIGPIPE: the JVM gone, end).
    for s in (signal.SIGPIPE, signal.SIGINT):
        signal.signal(s, signal.SIG_DFL)
    send({"ready": os.getpid(), "dumpable": nondumpable(), "seccomp": seccomp()})
    while True:
        line = CTL_IN.readline()
        if not line:
            return
        send(run(json.loads(line)))


def seccomp():
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Seccomp:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return -1


main()
