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


