# Process events of the agent from the kernel, not from /proc samples: the host side of a local attempt (never the box)
# listens on the proc connector (netlink, NETLINK_CONNECTOR / CN_IDX_PROC) and reports every fork, exec and exit of
# the processes descending from its parent (the JVM that started it, and so every agent it launches), each with the
# kernel's own timestamp. A process of a few microseconds is reported all the same: the kernel queues its events.
# The agent cannot forge or silence them: they come from the kernel into a socket of this host process, which no
# process in the box can reach (it has its own network namespace, and the connector answers only in the host's).
#
# Needs: Linux with the proc connector, this process in the host's network namespace and its PID namespace (the
# pids must be the JVM's), and CAP_NET_ADMIN before Linux 6.6 (later kernels let any user listen). When one is
# missing it says why in {"unavailable": ...} and exits 3; the JVM then records processes by sampling /proc.
#
# Out (stdout, one JSON line each): {"ready": pid, "tick": ns of the coarse clock file times come from}; {"fork": pid, "ppid": ppid, "t": ns}; {"exec": pid, "t": ns,
# "argv": [...], "cwd": path or null}; {"exit": pid, "t": ns, "status": wait status}; {"lost": n} when the kernel
# dropped events (socket buffer full); {"synced": n, "t": ns} answering "sync n" on stdin once every event queued
# before it was reported. t: wall-clock nanoseconds (the kernel's monotonic stamp moved onto the wall clock).
import json
import os
import select
import socket
import struct
import sys
import time

NETLINK_CONNECTOR = 11
CN_IDX_PROC = 1
CN_VAL_PROC = 1
PROC_CN_MCAST_LISTEN = 1
FORK, EXEC, EXIT = 0x1, 0x2, 0x80000000
NLMSG_HDR = struct.Struct("=IHHII")
CN_MSG = struct.Struct("=IIIIHH")
EV_HDR = struct.Struct("=IIQ")  # what, cpu, timestamp_ns (CLOCK_MONOTONIC)
MAX_ARGV = 8192  # bytes of a command line reported: the agent chooses it
TRACKED_MAX = 65536  # live descendants followed at once (the box's pid limit is far lower)

out = sys.stdout


def send(obj):
    out.write(json.dumps(obj, separators=(",", ":")) + "\n")


def unavailable(why):
    send({"unavailable": why})
    out.flush()
    sys.exit(3)


def subscribe():
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, NETLINK_CONNECTOR)
    try:
        s.setsockopt(socket.SOL_SOCKET, 33, 16 << 20)  # SO_RCVBUFFORCE (root only): the whole host's events pass here
    except OSError:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 << 20)
    s.bind((os.getpid(), CN_IDX_PROC))
    op = struct.pack("=I", PROC_CN_MCAST_LISTEN)
    cn = CN_MSG.pack(CN_IDX_PROC, CN_VAL_PROC, 0, 0, len(op), 0) + op
    s.send(NLMSG_HDR.pack(NLMSG_HDR.size + len(cn), 3, 0, 0, os.getpid()) + cn)  # NLMSG_DONE
    return s


def events(s):
    """The (what, ns, a, b, c, d) of each event now queued on s, without blocking."""
    while True:
        try:
            data = s.recv(65536, socket.MSG_DONTWAIT)
        except BlockingIOError:
            return
        except OSError as e:
            if e.errno == 105:  # ENOBUFS: the kernel dropped events
                yield ("lost", 0, 0, 0, 0, 0)
                continue
            raise
        off = 0
        while off + NLMSG_HDR.size <= len(data):
            length = NLMSG_HDR.unpack_from(data, off)[0]
            if length < NLMSG_HDR.size:
                break
            body = off + NLMSG_HDR.size + CN_MSG.size
            if body + EV_HDR.size + 16 <= off + length:
                what, _, ts = EV_HDR.unpack_from(data, body)
                a, b, c, d = struct.unpack_from("=iiii", data, body + EV_HDR.size)
                yield (what, ts, a, b, c, d)
            off += (length + 3) & ~3


def read(path, limit):
    try:
        with open(path, "rb") as f:
            return f.read(limit)
    except OSError:
        return None


def self_check(s, offset):
    """A fork of this process must come back with the pid this process sees: else the pids are another namespace's."""
    child = os.fork()
    if child == 0:
        os._exit(0)
    os.waitpid(child, 0)
    end = time.monotonic() + 2
    while time.monotonic() < end:
        select.select([s], [], [], 0.1)
        for what, _, _, ptgid, _, ctgid in events(s):
            if what == FORK and ptgid == os.getpid() and ctgid == child:
                return
    unavailable("no fork event for this helper's own child: the proc connector reports another PID namespace's pids")


RT_EVENTS_PER_S = 20000  # above this rate the helper gives up its real-time priority for the next second


def priority(realtime):
    """A command line is read from /proc after the exec event, and a process of a few ms is gone soon after: on a busy
    machine this helper must run first (SCHED_FIFO 1, the lowest real-time priority; else nice -15). It mostly sleeps.
    A flood of events (an agent forking in a loop) must not turn that into a busy real-time thread: then it is an
    ordinary process for a second. Only a privileged run may raise it at all."""
    try:
        if realtime:
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
            return True
        os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
    except (OSError, AttributeError):
        pass
    try:
        os.setpriority(os.PRIO_PROCESS, 0, -15)
    except OSError:
        pass
    return False


def main():
    rt = priority(True)
    try:
        s = subscribe()
    except OSError as e:
        unavailable("proc connector: " + (e.strerror or str(e)) + " (needs the host's network namespace; CAP_NET_ADMIN before Linux 6.6)")
    offset = time.time_ns() - time.monotonic_ns()
    self_check(s, offset)
    root = os.getppid()
    tracked = {root}
    lost = 0
    try:
        tick = int(time.clock_getres(5) * 1e9)  # CLOCK_REALTIME_COARSE: the clock file times are stamped from
    except OSError:
        tick = 0
    send({"ready": os.getpid(), "tick": tick})
    out.flush()
    pending = b""
    window, seen = time.monotonic(), 0
    while True:
        r, _, _ = select.select([s, 0], [], [])
        syncs = []
        if 0 in r:
            chunk = os.read(0, 4096)
            if not chunk:
                return  # the JVM is done (or gone)
            pending += chunk
            *lines, pending = pending.split(b"\n")
            pending = pending[-64:]
            syncs = [x.split()[1] for x in lines if x.startswith(b"sync ") and x.split()[1].isdigit()]
        for what, ts, a, b, c, d in events(s):
            seen += 1
            t = ts + offset
            if what == "lost":
                lost += 1
                send({"lost": lost})
            elif what == FORK:
                # a, b: parent pid, tgid; c, d: child pid, tgid. Threads (c != d) are not processes.
                if c == d and b in tracked and len(tracked) < TRACKED_MAX:
                    tracked.add(d)
                    send({"fork": d, "ppid": b, "t": t})
            elif what == EXEC:
                if b in tracked:
                    raw = read("/proc/%d/cmdline" % b, MAX_ARGV)
                    argv = [x.decode("utf-8", "replace") for x in raw.rstrip(b"\0").split(b"\0")] if raw else None
                    if not argv:
                        comm = read("/proc/%d/comm" % b, 64)
                        argv = ["[" + comm.decode("utf-8", "replace").strip() + "]"] if comm else None
                    try:
                        cwd = os.readlink("/proc/%d/cwd" % b)[:4096]
                    except OSError:
                        cwd = None
                    send({"exec": b, "t": t, "argv": argv, "cwd": cwd})
            elif what == EXIT:
                # a, b: pid, tgid; c: exit code (wait status). Only the thread group's leader ends the process.
                if a == b and b in tracked and b != root:
                    tracked.discard(b)
                    send({"exit": b, "t": t, "status": c})
        now = time.monotonic()
        if now - window >= 1:
            want = seen <= RT_EVENTS_PER_S
            if want != rt:
                rt = priority(want)
            window, seen = now, 0
        elif rt and seen > RT_EVENTS_PER_S:
            rt = priority(False)
        for n in syncs:  # every event queued before the request was read is reported above
            send({"synced": int(n), "t": time.time_ns()})
        out.flush()


main()
