# The trusted grading process opens no FIFO it did not make, no device through a path outside /dev, and no hidden test
# data file through a link (blind round 19, x4: code under test, a worker or a test's program in its box, that left a
# FIFO with no writer where a test reads its output held this process in open() until grading's timeout, 600 s for a
# grade of seconds; a link to /dev/zero there would be read without end. Blind round 20, e03/e04: the output file made a
# link to the golden file beside the input, so the test compared the answers with themselves). Such an open fails at
# once (ENXIO, the message naming the file); the test fails, and the grade records a `special-file` attempt. The
# oracle's own FIFOs (the launcher's folder, its request FIFO), FIFOs a test makes itself with os.mkfifo, and the
# hidden data opened by its own name open as before.
import errno
import os
import stat
import sys


class SpecialFiles:
    def __init__(self, own, record, hidden=lambda: ()):
        self.own_dirs = tuple(os.path.realpath(d).rstrip("/") + "/" for d in own if d)
        self.own = {os.path.realpath(d) for d in own if d}
        self.record = record  # called with the refused path, before the open fails
        self.hidden = hidden  # the hidden test data files, as real paths

    def made_here(self, path, dir_fd=None):
        if dir_fd is None:
            try:
                self.own.add(os.path.realpath(os.fsdecode(path)))
            except (TypeError, ValueError):
                pass

    def check(self, event, args):
        if event != "open" or not args or isinstance(args[0], int) or args[0] is None:
            return
        try:
            path = os.fsdecode(args[0])
            mode = os.stat(path).st_mode  # follows links, as the open will; a stat never blocks
        except (OSError, TypeError, ValueError):
            return
        if stat.S_ISFIFO(mode):
            real = os.path.realpath(path)
            if real in self.own or real.startswith(self.own_dirs):
                return
            what = "a FIFO the grading process did not make"
        elif stat.S_ISREG(mode):
            if not os.path.islink(path) or os.path.realpath(path) not in self.hidden():
                return
            what = "a link to a hidden test data file"
        elif stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
            if os.path.normpath(os.path.join(os.getcwd(), path)).startswith("/dev/") and not os.path.islink(path):
                return
            what = "a device reached through a path outside /dev"
        else:
            return
        self.record("%s: %s" % (what, path[:200]))
        raise OSError(errno.ENXIO, "crucible: the grading process does not open %s (left where a test reads by the code "
                                   "under test)" % what, path)


def install(oracle):
    """Audits every open of the grading process (an audit hook cannot be removed) and notes the FIFOs os.mkfifo makes
    here. oracle: the plugin's (its launcher's FIFOs, its record of attempts, its watch on the hidden data)."""
    launcher = oracle.cfg.get("launcher", {})
    guard = SpecialFiles((launcher.get("dir"), launcher.get("spawn")),
                         lambda d: oracle.conn.attempts.add("special-file", d, oracle.conn.test),
                         lambda: oracle.watch.files if oracle.watch is not None else ())
    real = os.mkfifo

    def mkfifo(path, mode=0o666, *, dir_fd=None):
        real(path, mode, dir_fd=dir_fd)
        guard.made_here(path, dir_fd)
    mkfifo.__doc__, mkfifo.__wrapped__ = real.__doc__, real
    os.mkfifo = mkfifo
    sys.addaudithook(guard.check)
    return guard
