"""Crucible's oracle spawner: the command of a rollout pod's oracle-worker container (issue 33).

The isolated oracle runs a graded test's assertions in the trusted grading process (the grading container)
and the code under test in untrusted workers. Locally each worker is a bubblewrap box; a pod's containers
cannot make one (RuntimeDefault seccomp refuses new user namespaces), so the workers run here instead: a
container of their own, from the environment's image, that shares with the grading container only the
oracle's FIFO-and-scratch folders. It sees the grading tree as a copy without the trusted test files
(the sidecar makes it), not the grading volume, the results, the workspace or the pristine copy, and it
has its own PID namespace: no /proc entry here names the grading process.

It connects once to the sidecar's socket (removed at once), says hello, then reads JSON lines:
{"op": "serve", "dir", "cwd", "argv", "env"} starts serving one grading; worker 1 starts at once. The grading
process's requests reach here through the sidecar, which reads them off a FIFO no worker can see (the workers
share this container, its uid and its mounts: a request FIFO here would be theirs to write and read):
{"op": "spawn", "n": N} starts worker N (argv + [dir/wN.in, dir/wN.out], in cwd, with env only), {"op": "kill",
"n": N} ends it, as the local OracleWorkers does; {"op": "child"|"endchild", "n": N} starts or ends the box end of
a process a graded test started (child_argv + [dir/cN.in, dir/cN.out]: oracle_children); none is answered. {"op": "end"} ends every worker; so does
the socket's end.
Workers run under the grading runner's seccomp filter (no socket but AF_UNIX/netlink: no network).
Standard library only; it loads the grading runner's script (--runner) for its hardening, filter and sweep.
"""
import importlib.util
import json
import os
import signal
import subprocess
import sys
import threading


def load_runner(path):
    spec = importlib.util.spec_from_file_location("crucible_grading_runner", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class Grading:
    """One grading's workers."""

    def __init__(self, req, guard, log):
        self.dir, self.cwd = req["dir"], req["cwd"]
        self.argv, self.env = [str(a) for a in req["argv"]], {str(k): str(v) for k, v in req.get("env", {}).items()}
        self.child_argv = [str(a) for a in req.get("child_argv", [])]
        self.children = {}  # processes graded tests started, by their relay's pid in the grading container
        self.guard, self.log = guard, log
        self.workers = {}
        self.stopped = threading.Event()

    def start(self):
        self.spawn(1)  # its FIFOs are made with the grading's: its start overlaps the trusted side's

    def handle(self, req):
        n = req.get("n")
        if not isinstance(n, int) or isinstance(n, bool) or not 0 < n < 10000000 or self.stopped.is_set():
            return
        op = req.get("op")
        if op == "kill":
            self.kill(n)
        elif op == "spawn":
            self.spawn(n)
        elif op == "child" and n < 10000000:
            self.child(n)
        elif op == "endchild":
            self.kill(n, self.children)

    def spawn(self, n):
        if n in self.workers or len(self.workers) >= 64:
            return
        fin, fout = (os.path.join(self.dir, "w%d.%s" % (n, s)) for s in ("in", "out"))
        try:
            for f in (fout, fin):  # .in last: the grading process waits for it, then opens .out
                if not os.path.exists(f):
                    os.mkfifo(f, 0o666)
                    os.chmod(f, 0o666)
            self.workers[n] = subprocess.Popen(self.argv + [fin, fout], cwd=self.cwd, env=self.env, close_fds=True,
                                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                               start_new_session=True, preexec_fn=self.guard)
        except (OSError, subprocess.SubprocessError) as e:
            self.log("starting worker %d: %s" % (n, e))

    def child(self, n):
        """A process a graded test started (its relay's pid n): the box end of the relay, as a worker is started, its
        FIFOs cN.in / cN.out made by the sidecar."""
        for k in [k for k, p in self.children.items() if p.poll() is not None]:
            del self.children[k]
        if not self.child_argv or n in self.children or len(self.workers) + len(self.children) >= 64:
            return
        fin, fout = (os.path.join(self.dir, "c%d.%s" % (n, s)) for s in ("in", "out"))
        try:
            self.children[n] = subprocess.Popen(self.child_argv + [fin, fout], cwd=self.cwd, env=self.env, close_fds=True,
                                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                                start_new_session=True, preexec_fn=self.guard)
        except (OSError, subprocess.SubprocessError) as e:
            self.log("starting a test's process c%d: %s" % (n, e))

    def kill(self, n, table=None):
        p = (self.workers if table is None else table).pop(n, None)
        if p is not None:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
            p.wait()

    def stop(self):
        self.stopped.set()
        for n in list(self.workers):
            self.kill(n)
        for n in list(self.children):
            self.kill(n, self.children)


def main(args):
    sock, runner, wait = None, "/crucible/grading-runner.py", 900.0
    for i in range(0, len(args) - 1, 2):
        if args[i] == "--socket":
            sock = args[i + 1]
        elif args[i] == "--runner":
            runner = args[i + 1]
        elif args[i] == "--wait-seconds":
            wait = float(args[i + 1])
        else:
            raise SystemExit("crucible-oracle-spawner: unexpected argument '%s' (usage: --socket PATH [--runner PATH] "
                             "[--wait-seconds S])" % args[i])
    if sock is None or len(args) % 2:
        raise SystemExit("crucible-oracle-spawner: --socket PATH: required")
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    gr = load_runner(runner)
    hardening = gr.harden()
    guard, net_problem = gr.network_guard()
    conn = gr.connect(sock, wait)
    hello = {"hello": 1, "pid": os.getpid(), "uid": os.getuid(), "python": sys.executable, "version": sys.version.split()[0],
             "mode": "oracle", "network": "seccomp" if guard else None, "networkProblem": net_problem}
    hello.update(hardening)
    gr.log(json.dumps(hello))
    f = conn.makefile("rb")
    conn.sendall((json.dumps(hello) + "\n").encode())
    current = None
    try:
        for raw in f:
            try:
                req = json.loads(raw)
            except ValueError:
                continue
            if req.get("op") in ("spawn", "kill", "child", "endchild"):
                if current is not None:
                    current.handle(req)
                continue  # not answered: the sidecar relays these as the grading process writes them
            if current is not None:
                current.stop()
                gr.sweep()  # whatever a worker left (it may have left its session): the container holds only workers
                current = None
            if req.get("op") == "serve":
                current = Grading(req, guard, gr.log)
                current.start()
            conn.sendall(b'{"ok": 1}\n')
    except (OSError, ValueError):
        pass
    if current is not None:
        current.stop()
    gr.sweep()
    return 0  # the sidecar closed the connection: the rollout is over


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
