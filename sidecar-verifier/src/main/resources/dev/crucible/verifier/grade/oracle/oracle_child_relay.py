# The grading box's end of a process a graded test starts (oracle_children rewrote the spawn to run this): it stands
# in for the program, so the test keeps every handle it had (its pipes, the pid it waits on, the exit status, the
# signals it sends), while the program itself runs in a box of its own (oracle_child_box), asked for as a worker is:
# a line "cPID" on the request FIFO, the FIFO pair cPID.in / cPID.out in the workers' FIFO folder, "-cPID" at the end.
#
# Run as `python -I -S -B oracle_child_relay.py CONFIG -- EXECUTABLE ARGV...`, in the folder and with the environment
# the test gave the program: CONFIG (JSON) names the FIFOs, the tree and where the box shows it, and the grader's own
# folders; what crosses is the test's environment without the grader's variables and folders (PYTHONPATH's entries
# in the tree moved to the copy), and its folder, moved to the copy when it lies in the tree.
import json
import os
import select
import signal
import struct
import sys
import time

MAX_FRAME = 1 << 22
# how long a box, a worker's or a started process's, is waited for (oracle_launch and oracle_children take it too): long,
# a box is slow to start only on a loaded machine (blind round 18, h08: 30 s ran out), and the grader says at once why one
# will not come (NAME.failed, read by refusal)
START_TIMEOUT = 120
_FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)
_NOT_CROSSING = ("PYTEST_CURRENT_TEST",)


def _under(path, root):
    return path == root or path.startswith(root.rstrip("/") + "/")


def translated(path, root, shown):
    return shown + path[len(root):] if shown != root and _under(path, root) else path


def child_env(env, cfg):
    """The test's environment for its program: never a CRUCIBLE_* variable nor a folder of the grader's own."""
    grader = set(cfg.get("grader", []))
    root, shown = cfg["root"], cfg.get("shown") or cfg["root"]
    out = {}
    for k, v in env.items():
        if k.startswith("CRUCIBLE_") or k in _NOT_CROSSING:
            continue
        if k == "PYTHONPATH":
            keep = [translated(p, root, shown) for p in v.split(os.pathsep) if p and os.path.realpath(p) not in grader]
            if not keep:
                continue
            v = os.pathsep.join(keep)
        out[k] = v
    return out


def _fail(why):
    os.write(2, ("crucible: %s\n" % why).encode())
    os._exit(125)


def refusal(path, since):
    """The grader's reason its box will not come (PATH.failed, written whole), or None: one older than the request
    was left for an earlier relay of the same pid."""
    try:
        with open(path, "rb") as f:
            if os.fstat(f.fileno()).st_mtime < since - 1:
                return None
            return f.read(4096).decode("utf-8", "replace").strip() or "refused"
    except OSError:
        return None


def _open_writer(path, wait, failed, since):
    # oracle_launch._open_fifo's loop, repeated: the relay runs with -I -S and imports none of the oracle's modules
    deadline = time.monotonic() + wait
    tick = 0
    while True:  # ENXIO until the box's end opened the FIFO for reading
        try:
            if os.path.exists(path):
                return os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            pass
        tick += 1
        why = refusal(failed, since) if tick % 25 == 0 else None
        if why:
            _fail("the grader did not start a box for the test's process: %s" % why)
        if time.monotonic() > deadline:
            _fail("no box for the test's process came up within %g s" % wait)
        time.sleep(0.002)


class Relay:
    def __init__(self, cfg, argv):
        self.cfg, self.argv = cfg, argv
        self.name = "c%d" % os.getpid()
        self.out = b""  # frames not yet written to the box
        self.inbuf = b""
        self.stdin_open = True
        self.stdout_ok = {1: True, 2: True}

    def request(self, line):
        try:
            fd = os.open(self.cfg["spawn"], os.O_WRONLY | os.O_NONBLOCK)
            os.write(fd, line.encode() + b"\n")
            os.close(fd)
        except OSError:
            pass

    def frame(self, kind, body=b""):
        self.out += kind + struct.pack(">I", len(body)) + body

    def start(self):
        d = self.cfg["dir"]
        since = time.time()
        self.request(self.name)
        self.wfd = _open_writer(os.path.join(d, self.name + ".in"), float(self.cfg.get("start_timeout", START_TIMEOUT)),
                                os.path.join(d, self.name + ".failed"), since)
        self.rfd = os.open(os.path.join(d, self.name + ".out"), os.O_RDONLY | os.O_NONBLOCK)
        root, shown = self.cfg["root"], self.cfg.get("shown") or self.cfg["root"]
        env = child_env({os.fsdecode(k): os.fsdecode(v) for k, v in os.environb.items()}, self.cfg)
        # the folder moves to the tree's copy, as a worker's does; arguments stay as they are: the grading tree is
        # shown read-only where it lies too, for a path a test hands over
        header = {"executable": self.argv[0], "argv": self.argv[1:], "env": env, "cwd": translated(os.getcwd(), root, shown)}
        self.frame(b"h", json.dumps(header).encode("utf-8", "surrogateescape"))
        for s in _FORWARDED:
            signal.signal(s, lambda n, _f: self.frame(b"s", bytes([n])))
        try:
            os.fstat(0)
        except OSError:
            self.stdin_open = False
            self.frame(b"c")

    def write_std(self, fd, data):
        if not self.stdout_ok[fd]:
            return
        try:
            while data:
                data = data[os.write(fd, data):]
        except OSError:
            self.stdout_ok[fd] = False  # the test closed its end: the rest is dropped, as a pipe's writer would see

    def serve(self):
        ready = False
        while True:
            fds = [self.rfd]
            if self.stdin_open and ready and len(self.out) < (1 << 20):
                fds.append(0)
            wfds = [self.wfd] if self.out and ready else []
            try:
                r, w, _ = select.select(fds, wfds, [], 0.05)
            except (OSError, ValueError):
                r, w = [], []
            if self.wfd in w:
                try:
                    n = os.write(self.wfd, self.out[:65536])
                    self.out = self.out[n:]
                except BlockingIOError:
                    pass
                except OSError:
                    # the box end is done with its input (the program ended without reading all of it): as a pipe's writer
                    # sees EPIPE, the rest is dropped; its exit status is still on its way (markitdown's CLI read a zip
                    # from stdin, and the test got 125 instead of the program's status)
                    self.out, self.stdin_open = b"", False
            if 0 in r:
                try:
                    b = os.read(0, 65536)
                except OSError:
                    b = b""
                if b:
                    self.frame(b"i", b)
                else:
                    self.stdin_open = False
                    self.frame(b"c")
            if self.rfd in r:
                try:
                    b = os.read(self.rfd, 1 << 16)
                except BlockingIOError:
                    continue
                if not b:
                    _fail("the test's process ended in its box without an exit status")
                self.inbuf += b
                while len(self.inbuf) >= 5:
                    kind, size = self.inbuf[:1], struct.unpack(">I", self.inbuf[1:5])[0]
                    if size > MAX_FRAME:
                        _fail("a garbled answer from the box of the test's process")
                    if len(self.inbuf) < 5 + size:
                        break
                    body, self.inbuf = self.inbuf[5:5 + size], self.inbuf[5 + size:]
                    if kind == b"k":
                        ready = True
                    elif kind == b"o":
                        self.write_std(1, body)
                    elif kind == b"e":
                        self.write_std(2, body)
                    elif kind == b"x" and size == 4:
                        self.finish(struct.unpack(">i", body)[0])
                    else:
                        _fail("a garbled answer from the box of the test's process")

    def finish(self, status):
        self.request("-" + self.name)
        if status < 0 and 0 < -status < 65:  # ended by a signal: so does this process, as the test expects of the program
            try:
                signal.signal(-status, signal.SIG_DFL)
                os.kill(os.getpid(), -status)
                time.sleep(1)
            except OSError:
                pass
            os._exit(128 - status)
        os._exit(status & 0xff)


def main():
    args = sys.argv[1:]
    if len(args) < 3 or args[1] != "--":
        _fail("usage: oracle_child_relay.py CONFIG -- EXECUTABLE ARGV...")
    cfg = json.loads(args[0])
    relay = Relay(cfg, [os.fsdecode(a) for a in sys.argv[3:]])
    relay.start()
    try:
        relay.serve()
    finally:
        relay.request("-" + relay.name)


if __name__ == "__main__":
    main()
