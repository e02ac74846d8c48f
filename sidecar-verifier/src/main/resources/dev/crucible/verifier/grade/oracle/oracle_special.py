# The trusted grading process opens no FIFO it did not make, and no device through a path outside /dev (blind round
# 19, x4): code under test (a worker, or a test's program in its box) that leaves a FIFO with no writer where a test
# reads its output held this process in open() until grading's timeout, 600 s for a grade of seconds; a link to
# /dev/zero there would be read without end. Such an open fails at once (ENXIO, the message naming the file); the test
# fails, and the grade records a `special-file` attempt. The oracle's own FIFOs (the launcher's folder, its request
# FIFO) and FIFOs a test makes itself with os.mkfifo open as before.
import errno
import os
import stat
import sys


class SpecialFiles:
    def __init__(self, own, record):
        self.own_dirs = tuple(os.path.realpath(d).rstrip("/") + "/" for d in own if d)
        self.own = {os.path.realpath(d) for d in own if d}
        self.record = record  # called with the refused path, before the open fails

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
        elif stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
            if os.path.normpath(os.path.join(os.getcwd(), path)).startswith("/dev/") and not os.path.islink(path):
                return
            what = "a device reached through a path outside /dev"
        else:
            return
        self.record("%s: %s" % (what, path[:200]))
        raise OSError(errno.ENXIO, "crucible: the grading process does not open %s (left by the code under test, it would "
                                   "hold grading until its timeout)" % what, path)


def install(own, record):
    """Audits every open of this process (an audit hook cannot be removed) and notes the FIFOs os.mkfifo makes here."""
    guard = SpecialFiles(own, record)
    real = os.mkfifo

    def mkfifo(path, mode=0o666, *, dir_fd=None):
        real(path, mode, dir_fd=dir_fd)
        guard.made_here(path, dir_fd)
    mkfifo.__doc__, mkfifo.__wrapped__ = real.__doc__, real
    os.mkfifo = mkfifo
    sys.addaudithook(guard.check)
    return guard
