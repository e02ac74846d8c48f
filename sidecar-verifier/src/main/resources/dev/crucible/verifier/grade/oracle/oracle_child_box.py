# The box end of a process a graded test starts (oracle_children): it runs in a box of its own, made as a worker's is
# (the tree's copy with the trusted test files empty, the scratch folder, the toolchain; no test file, channel or
# grader state), and runs there the program the test asked for, relaying its stdin, stdout, stderr, signals and exit
# status to the relay (oracle_child_relay) in the grading box over a FIFO pair. Blind grading round 17 (x08, x13):
# a CLI test's `python -m pkg` ran beside the hidden tests and read them.
#
# Frames both ways: one type byte, a 4-byte big-endian length, the payload. To the relay: k (ready), o (stdout bytes),
# e (stderr bytes), x (exit: a 4-byte signed status, negative for a signal). From it: h (header: JSON argv, executable,
# env, cwd), i (stdin bytes), c (stdin closed), s (a signal number for the program's process group).
# Started as `python -I -B -c SOURCE IN OUT [--tied]`; with --tied its stdin is a pipe only the grader holds, whose end
# ends it (and its program) even when the grader was SIGKILLed.
import json
import os
import signal
import struct
import subprocess
import sys
import threading

MAX_FRAME = 1 << 22


def _nondumpable():
    # the program shares this box's uid: without this it could open /proc/<this>/fd and write frames of its own
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0
    except (OSError, AttributeError, ImportError):
        pass


def _read_exact(fd, n):
    out = b""
    while len(out) < n:
        b = os.read(fd, n - len(out))
        if not b:
            return None
        out += b
    return out


def read_frame(fd):
    head = _read_exact(fd, 5)
    if head is None:
        return None, None
    kind, size = head[:1], struct.unpack(">I", head[1:])[0]
    if size > MAX_FRAME:
        return None, None
    body = _read_exact(fd, size) if size else b""
    return (kind, body) if body is not None else (None, None)


class Box:
    def __init__(self, rfd, wfd):
        self.rfd, self.wfd = rfd, wfd
        self.lock = threading.Lock()
        self.proc = None

    def send(self, kind, body=b""):
        with self.lock:
            data = kind + struct.pack(">I", len(body)) + body
            while data:
                data = data[os.write(self.wfd, data):]

    def end(self, why):
        if self.proc is not None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                pass
        if why:
            try:
                self.send(b"e", ("crucible: %s\n" % why).encode())
            except OSError:
                pass
        os._exit(0)

    def run(self):
        self.send(b"k")
        kind, body = read_frame(self.rfd)
        if kind != b"h":
            self.end(None)
        try:
            h = json.loads(body.decode("utf-8"))
            argv = [os.fsencode(a) for a in h["argv"]]
            exe = os.fsencode(h["executable"])
            env = {os.fsencode(k): os.fsencode(v) for k, v in h["env"].items()}
            cwd = os.fsencode(h["cwd"]) if h.get("cwd") else None
        except (ValueError, KeyError, TypeError, AttributeError, UnicodeError):
            self.end("a malformed request for a test's process")
        try:
            self.proc = subprocess.Popen(argv, executable=exe, env=env, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, start_new_session=True, close_fds=True)
        except OSError as e:  # the trusted side checked that the program exists: this one is the box's answer
            self.send(b"e", ("crucible: starting %s in the code under test's box: %s\n" % (os.fsdecode(exe), e)).encode())
            self.send(b"x", struct.pack(">i", 127))
            os._exit(0)
        threading.Thread(target=self.pump_in, daemon=True).start()
        outs = [threading.Thread(target=self.pump_out, args=(self.proc.stdout, b"o")),
                threading.Thread(target=self.pump_out, args=(self.proc.stderr, b"e"))]
        for t in outs:
            t.start()
        for t in outs:
            t.join()
        status = self.proc.wait()
        self.send(b"x", struct.pack(">i", status))
        os._exit(0)

    def pump_out(self, stream, kind):
        fd = stream.fileno()
        while True:
            try:
                b = os.read(fd, 65536)
            except OSError:
                b = b""
            if not b:
                return
            try:
                self.send(kind, b)
            except OSError:
                self.end(None)  # the relay is gone

    def pump_in(self):
        stdin = self.proc.stdin
        while True:
            kind, body = read_frame(self.rfd)
            if kind is None:  # the relay ended (killed with the test's process): so does the program
                self.end(None)
            if kind == b"i" and stdin is not None:
                try:
                    stdin.write(body)
                    stdin.flush()
                except (OSError, ValueError):
                    stdin = None
            elif kind == b"c" and stdin is not None:
                try:
                    stdin.close()
                except OSError:
                    pass
                stdin = None
            elif kind == b"s" and len(body) == 1 and 0 < body[0] < 65:
                try:
                    os.killpg(self.proc.pid, body[0])
                except OSError:
                    pass


def main():
    args = sys.argv[1:]
    if args[-1:] == ["--tied"]:
        args = args[:-1]
        tied = os.dup(0)
    else:
        tied = None
    _nondumpable()
    rfd = os.open(args[0], os.O_RDONLY)
    wfd = os.open(args[1], os.O_WRONLY)
    box = Box(rfd, wfd)
    if tied is not None:
        def watch():
            try:
                while os.read(tied, 4096):
                    pass
            except OSError:
                pass
            box.end(None)
        threading.Thread(target=watch, daemon=True).start()
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):
        os.dup2(null, fd)
    box.run()


if __name__ == "__main__":
    main()
