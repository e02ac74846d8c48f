# How the trusted side starts an untrusted worker. "bwrap": it runs bubblewrap itself (a grading process
# that is not in a box of its own, e.g. the oracle's tests). "fifo": the grader starts each worker in a box
# of its own (sidecar-verifier's OracleWorkers) when asked through a request FIFO, and the worker's stdin
# and stdout are a FIFO pair in a folder both boxes see: a process in a capability-less box cannot make
# another box. Either way the worker gets a clean environment, the tree with its test files masked, a
# shared scratch folder and its own PID namespace, so /proc/<parent> does not name the grading process.
import os
import subprocess
import sys
import time

from oracle_child_relay import START_TIMEOUT, refusal

HERE = os.path.dirname(os.path.abspath(__file__))


def worker_source():
    parts = []
    for name in ("oracle_wire_graph.py", "oracle_wire.py", "oracle_audit.py", "oracle_audit_calls.py", "oracle_audit_probes.py", "oracle_audit_sandbox.py", "oracle_excattrs.py", "oracle_syspath.py", "oracle_worker.py"):  # the order OracleFiles.workerSource uses
        with open(os.path.join(HERE, name), encoding="utf-8") as f:
            parts.append(f.read())
    return "\n".join(parts)


class Proc:
    def __init__(self, rfd, wfd, kill, status):
        self.rfd, self.wfd, self._kill, self._status = rfd, wfd, kill, status

    def kill(self):
        for fd in (self.rfd, self.wfd):
            try:
                os.close(fd)
            except OSError:
                pass
        self._kill()

    def status(self):
        return self._status()


def bwrap_argv(cfg, tree, python):
    """bubblewrap's command line for a worker: what it sees is listed, nothing else of the host."""
    return bwrap_box(cfg, tree, python) + [python, "-I", "-B", "-c", worker_source()]


def bwrap_box(cfg, tree, python, env=None, cwd=None):
    """bubblewrap's command line up to the program: a worker's box; env and cwd (a process a test starts,
    oracle_children) replace the worker's variables and folder."""
    bw = [cfg.get("bwrap", "bwrap"), "--unshare-all", "--die-with-parent", "--new-session", "--clearenv",
          "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    seen = []
    for d in ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc", sys.prefix, sys.base_prefix, sys.exec_prefix,
              os.path.dirname(os.path.realpath(python))] + list(cfg.get("readonly", [])) + [p for p in sys.path if p]:
        if os.path.islink(d) and os.path.dirname(d) == "/":  # merged /usr: /bin, /lib64 are links
            if d not in seen:
                seen.append(d)
                bw += ["--symlink", os.readlink(d), d]
            continue
        d = os.path.realpath(d)
        if d == HERE:
            continue  # the oracle's own code is the grader's, not the worker's
        if not os.path.isdir(d) or d in seen or tree.rel(d) is not None or d == tree.root:
            continue
        if any(d.startswith(s + os.sep) for s in seen):
            continue
        if any(tree.root.startswith(d + os.sep) for _ in [0]):
            continue  # a folder holding the tree would show it unmasked
        seen.append(d)
        bw += ["--ro-bind", d, d]
    bw += ["--ro-bind", tree.root, tree.root]
    for rel in tree.trusted_files():
        bw += ["--ro-bind", "/dev/null", os.path.join(tree.root, rel)]
    shared = cfg.get("shared_tmp")
    if shared:
        bw += ["--bind", shared, shared, "--setenv", "TMPDIR", shared]
    hidden = os.environ.get("CRUCIBLE_ORACLE_HIDDEN")  # hidden test data files the worker's audit watches (names only)
    if hidden and env is None:
        bw += ["--setenv", "CRUCIBLE_ORACLE_HIDDEN", hidden]
    if env is None:
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp"}
    for k, v in env.items():
        bw += ["--setenv", k, v]
    return bw + ["--chdir", cwd or tree.root, "--"]


def bwrap_launcher(cfg, tree):
    python = os.path.realpath(sys.executable)

    def launch():
        err = open(cfg["stderr"], "ab") if cfg.get("stderr") else subprocess.DEVNULL
        p = subprocess.Popen(bwrap_argv(cfg, tree, python), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                             close_fds=True, start_new_session=True, env={"PATH": "/usr/bin:/bin"})
        if err is not subprocess.DEVNULL:
            err.close()
        rfd, wfd = os.dup(p.stdout.fileno()), os.dup(p.stdin.fileno())
        p.stdout.close()
        p.stdin.close()

        def kill():
            try:
                os.killpg(p.pid, 9)
            except OSError:
                pass
            p.wait()
        return Proc(rfd, wfd, kill, lambda: p.poll())
    return launch


def fifo_launcher(cfg):
    """Asks the grader for a worker: one line 'N\\n' on the request FIFO; the worker's pair is wN.in/wN.out.

    The request FIFO lies outside the workers' FIFO folder (cfg "spawn"), where no worker can reach it."""
    d = cfg["dir"]
    spawn = cfg["spawn"]
    counter = [0]

    def launch():
        counter[0] += 1
        n = counter[0]
        since = time.time()
        fd = os.open(spawn, os.O_WRONLY)
        os.write(fd, b"%d\n" % n)
        os.close(fd)
        deadline = time.monotonic() + float(cfg.get("start_timeout", START_TIMEOUT))
        wfd = _open_fifo(os.path.join(d, "w%d.in" % n), deadline, os.path.join(d, "w%d.failed" % n), since)
        # non-blocking: the worker opens its end once its interpreter is up; until it writes, poll waits (bounded by the call's deadline)
        rfd = os.open(os.path.join(d, "w%d.out" % n), os.O_RDONLY | os.O_NONBLOCK)

        def kill():
            try:
                k = os.open(spawn, os.O_WRONLY | os.O_NONBLOCK)
                os.write(k, b"-%d\n" % n)
                os.close(k)
            except OSError:
                pass
        return Proc(rfd, wfd, kill, lambda: "ended")
    return launch


def _open_fifo(path, deadline, failed=None, since=0):
    # opening the writing end fails with ENXIO until the worker opened its end: poll, bounded
    tick = 0
    while True:
        try:
            if os.path.exists(path):
                return os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            pass
        tick += 1
        why = refusal(failed, since) if failed and tick % 25 == 0 else None
        if why:
            from oracle_conn import OracleBroken
            raise OracleBroken("isolated oracle: the grader did not start a worker: " + why)
        if time.monotonic() > deadline:
            from oracle_conn import OracleBroken
            raise OracleBroken("isolated oracle: no worker came up within the start timeout")
        time.sleep(0.002)
