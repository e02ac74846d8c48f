"""Crucible's oracle spawner: the command of a rollout pod's oracle-worker container (issue 33).

The isolated oracle runs a graded test's assertions in the trusted grading process (the grading container)
and the code under test in untrusted workers. Locally each worker is a bubblewrap box; a pod's containers
cannot make one (RuntimeDefault seccomp refuses new user namespaces), so the workers run here instead: a
container of their own, from the environment's image, that shares with the grading container only the
oracle's FIFO-and-scratch folders. It sees the grading tree as a copy without the trusted test files
(the sidecar makes it), not the grading volume, the results, the workspace or the pristine copy, and it
has its own PID namespace: no /proc entry here names the grading process.

It connects once to the sidecar's socket (removed at once), says hello, then reads JSON lines:
{"op": "serve", "dir", "cwd", "argv", "env"} starts answering the requests of one grading: a line "N" on
dir/spawn starts worker N (argv + [dir/wN.in, dir/wN.out], in cwd, with env only), "-N" ends it, as the
local OracleWorkers does; worker 1 starts at once. {"op": "end"} ends every worker; so does the socket's end.
Workers run under the grading runner's seccomp filter (no socket but AF_UNIX/netlink: no network).
Standard library only; it loads the grading runner's script (--runner) for its hardening, filter and sweep.
"""
import importlib.util
import json
import os
import selectors
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
    """One grading's spawn FIFO, read on a thread of its own until stopped."""

    def __init__(self, req, guard, log):
        self.dir, self.cwd = req["dir"], req["cwd"]
        self.argv, self.env = [str(a) for a in req["argv"]], {str(k): str(v) for k, v in req.get("env", {}).items()}
        self.guard, self.log = guard, log
        self.workers = {}
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self.serve, daemon=True)

    def start(self):
        self.spawn(1)  # its FIFOs are made with the spawn FIFO: its start overlaps the trusted side's
        self.thread.start()

    def serve(self):
        try:
            # read-write: the FIFO never reports EOF between the grading process's writers
            fd = os.open(os.path.join(self.dir, "spawn"), os.O_RDWR | os.O_NONBLOCK)
        except OSError as e:
            self.log("spawn FIFO: %s" % e)
            return
        sel = selectors.DefaultSelector()
        sel.register(fd, selectors.EVENT_READ)
        buf = b""
        try:
            while not self.stopped.is_set():
                if not sel.select(0.2):
                    continue
                try:
                    chunk = os.read(fd, 4096)
                except BlockingIOError:
                    continue
                buf += chunk
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    self.handle(line.decode("ascii", "replace").strip())
                buf = buf[-64:]  # a writer that never ends a line holds no more than this
        finally:
            sel.close()
            os.close(fd)

    def handle(self, line):
        if not line.lstrip("-").isdigit() or len(line) > 7 or self.stopped.is_set():
            return  # anything else on the FIFO is not a request
        n = int(line.lstrip("-"))
        if line.startswith("-"):
            self.kill(n)
        else:
            self.spawn(n)

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

    def kill(self, n):
        p = self.workers.pop(n, None)
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
        self.thread.join(timeout=2)


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
