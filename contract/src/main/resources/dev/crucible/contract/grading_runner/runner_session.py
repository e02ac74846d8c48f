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
