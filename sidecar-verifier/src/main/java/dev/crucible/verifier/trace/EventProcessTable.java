package dev.crucible.verifier.trace;

import dev.crucible.trajectory.EventKind;
import dev.crucible.trajectory.TrajectoryRecorder;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The agent's process table built from the kernel's events ({@link ProcessEvents}): every process below the agent's
 * root with its parent, each program it ran (an exec starts a new image of the same pid), precise start and end, and
 * its exit status. Written to the trajectory as it happens: an exec as a {@code process.start} with the command line,
 * a process that ran no program of its own (a subshell) at its exit, a pre-exec image only when a file change is
 * attributed to it. {@link #attribute} names the process that most likely wrote a file at a modification time.
 * Memory: the live processes of this JVM's tree and the last {@link #ENDED} images.
 */
final class EventProcessTable implements ProcessEvents.Sink {
    static final int ENDED = 4096;
    /** File times come from a coarse clock (one kernel tick, up to 10 ms): a write may be stamped up to this much early. */
    static final Duration SLACK = Duration.ofMillis(10);
    private volatile Duration tick = SLACK;

    private static final class Image {
        final long pid;
        final long ppid;
        final String command;
        final String cwd;
        final Instant start;
        final Instant born; // the process's fork, for its duration
        final boolean exec;
        boolean agent;
        Instant end;
        Integer status; // wait status once it exited
        long seq;

        Image(long pid, long ppid, String command, String cwd, Instant start, Instant born, boolean exec, boolean agent) {
            this.pid = pid;
            this.ppid = ppid;
            this.command = command;
            this.cwd = cwd;
            this.start = start;
            this.born = born;
            this.exec = exec;
            this.agent = agent;
        }

        boolean aliveAt(Instant t) { return !start.isAfter(t) && (end == null || !end.isBefore(t)); }
    }

    private final TrajectoryRecorder rec;
    private final Map<Long, Image> live = new HashMap<>();
    private final ArrayDeque<Image> ended = new ArrayDeque<>();
    private long root = -1;
    private long rootSeq; // the root's one start event: events for its pid may reach us in any order around watch()
    private String agentCommand;
    private volatile String broken;
    private volatile boolean closing;

    EventProcessTable(TrajectoryRecorder rec) {
        this.rec = rec;
    }

    /** The coarse clock's tick on this host (the helper reads it), when known. */
    void tick(Duration d) {
        if (d != null && !d.isNegative() && !d.isZero() && d.compareTo(SLACK) <= 0) tick = d;
    }

    /** Null while the table is complete; else why it is not (events lost, the helper gone). */
    String broken() { return broken; }

    void closing() { closing = true; }

    @Override
    public synchronized void forked(long pid, long ppid, Instant at) {
        Image parent = live.get(ppid);
        Image old = live.remove(pid);
        retire(old, at); // a pid reused before its exit reached us, or the root named before its fork was reported
        Image img = new Image(pid, ppid, parent == null ? null : parent.command, parent == null ? null : parent.cwd, at, at, false,
                pid == root || parent != null && parent.agent);
        if (pid == root && old != null) img.seq = old.seq; // its start is recorded once
        live.put(pid, img);
    }

    @Override
    public synchronized void execed(long pid, List<String> argv, String cwd, Instant at) {
        Image old = live.remove(pid);
        String command = argv == null || argv.isEmpty() ? "[gone before its command line was read]" : String.join(" ", argv);
        Image img = new Image(pid, old == null ? 0 : old.ppid, command, cwd, at, old == null ? at : old.born, true, old != null && old.agent);
        retire(old, at);
        live.put(pid, img);
        if (pid == root) img.seq = old == null ? 0 : old.seq; // the root's own chain (setsid, the launcher, bwrap) is Crucible's wrapper
        else if (img.agent) emitStart(img);
    }

    @Override
    public synchronized void exited(long pid, int status, Instant at) {
        Image img = live.remove(pid);
        if (img == null) return;
        img.status = status;
        retire(img, at);
        if (!img.agent || pid == root) return; // the root's end and status come from the caller, who waited for it
        emitEnd(img);
    }

    private void emitEnd(Image img) {
        if (img.seq == 0 && !img.exec) emitStart(img); // it ran no program of its own: a subshell, a forked worker
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("pid", img.pid);
        int status = img.status;
        int code = (status & 0x7f) != 0 ? 128 + (status & 0x7f) : (status >> 8) & 0xff;
        d.put("exitStatus", code);
        if ((status & 0x7f) != 0) d.put("signal", status & 0x7f);
        d.put("durationMs", Duration.between(img.born, img.end).toMillis());
        d.put("observed", "kernel exit event");
        rec.append(EventKind.PROCESS_END, null, img.seq > 0 ? img.seq : null, d);
    }

    @Override
    public void lost(String why) {
        if (!closing && broken == null) broken = why;
    }

    /**
     * The agent's root (the process this JVM started): it and what descends from it are the agent's, those started before
     * this call included. Records the root's start with the agent command it runs.
     */
    synchronized long watch(long pid, List<String> command, Instant fallbackStart) {
        root = pid;
        rootSeq = 0;
        agentCommand = command == null ? null : String.join(" ", command);
        Image r = live.get(pid);
        // a quick root may have run and ended before it was named (its exit event came in first): its last image
        if (r == null) for (Image i : ended) if (i.pid == pid && (r == null || i.start.isAfter(r.start))) r = i;
        if (r == null) { // its fork not reported yet: its command line as /proc has it now
            // /proc may not show it yet (mid-exec): the command this JVM started is known
            String cmd = ProcessHandle.of(pid).flatMap(h -> h.info().commandLine())
                    .orElse(agentCommand == null ? "[not yet reported]" : agentCommand);
            long ppid = ProcessHandle.of(pid).flatMap(ProcessHandle::parent).map(ProcessHandle::pid).orElse(0L);
            live.put(pid, r = new Image(pid, ppid, cmd, null, fallbackStart, fallbackStart, true, true));
        }
        List<Image> all = new ArrayList<>(live.values());
        all.addAll(ended);
        all.sort(Comparator.comparing((Image i) -> i.start));
        Set<Long> agent = new HashSet<>();
        for (Image i : all) {
            if (i.pid == pid || agent.contains(i.ppid)) {
                i.agent = true;
                agent.add(i.pid);
            }
        }
        emitStart(r);
        for (Image i : all) { // what ran before this call, in order: programs started, processes ended
            if (!i.agent || i.pid == pid) continue;
            if (i.exec && i.seq == 0) emitStart(i);
            if (i.status != null) emitEnd(i);
        }
        return r.seq;
    }

    /**
     * The process that most likely wrote a file stamped {@code t}, as the seq of its start event (emitted now if it was
     * not yet), or null when the stamp is older than the agent. A stamp comes from the kernel's coarse clock: the write
     * happened in [t, t + tick]. The candidates are the agent's processes (each by the program it ran then) alive in that
     * window, and of them those none of whose children is one (a shell waits while its child writes). The pick is the one
     * most likely to have written then: the largest share of its own life inside the window (a write at a uniformly
     * random moment of its life lands there), so a command of a millisecond beats a server that runs all along and a
     * process stamped on its last instant; then the earliest started. With no candidate, the last to end before t.
     */
    synchronized Long attribute(Instant t) {
        Instant upTo = t.plus(tick);
        Map<Long, Image> byPid = new HashMap<>(); // the latest image of each pid in the window: the program it ran then
        Image lastEnded = null;
        Image rootImg = null;
        Instant now = Instant.now();
        for (Image i : images()) {
            if (!i.agent) continue;
            if (i.pid == root && (rootImg == null || i.start.isAfter(rootImg.start))) rootImg = i;
            boolean inWindow = !i.start.isAfter(upTo) && (i.end == null || !i.end.isBefore(t));
            if (inWindow) byPid.merge(i.pid, i, (a, b) -> a.start.isAfter(b.start) ? a : b);
            else if (i.end != null && i.end.isBefore(t) && (lastEnded == null || i.end.isAfter(lastEnded.end))) lastEnded = i;
        }
        Set<Long> parents = new HashSet<>();
        for (Image i : byPid.values()) parents.add(i.ppid);
        Image pick = null;
        double best = -1;
        for (Image i : byPid.values()) {
            if (parents.contains(i.pid)) continue;
            double score = share(i, t, upTo, now);
            if (pick == null || score > best || score == best && i.start.isBefore(pick.start)) {
                pick = i;
                best = score;
            }
        }
        if (pick == null) pick = lastEnded != null ? lastEnded : rootImg;
        // stamped before the agent's root existed (a file as setup left it): no process of the agent's wrote it
        if (pick == null || rootImg != null && rootImg.born.isAfter(upTo)) return null;
        if (pick.seq == 0) emitStart(pick);
        return pick.seq > 0 ? pick.seq : null;
    }

    /** The share of {@code i}'s life (so far) that lies in [from, to]. */
    private static double share(Image i, Instant from, Instant to, Instant now) {
        Instant end = i.end == null ? now : i.end;
        long life = Math.max(1, Duration.between(i.start, end).toNanos());
        Instant a = i.start.isAfter(from) ? i.start : from;
        Instant b = end.isBefore(to) ? end : to;
        return Math.max(0, Duration.between(a, b).toNanos()) / (double) life;
    }

    /** The start event of the process with this pid (its latest image), for a finding whose evidence names the pid. */
    synchronized Long seqOf(long pid) {
        Image best = live.get(pid);
        if (best == null) for (Image i : ended) if (i.pid == pid && i.agent) best = i;
        if (best == null || !best.agent) return null;
        if (best.seq == 0) emitStart(best);
        return best.seq > 0 ? best.seq : null;
    }

    /** The agent's root ended (the caller waited for it): its end, with the status. */
    synchronized void rootExited(long pid, Integer exitCode) {
        Image r = live.remove(pid);
        Instant now = Instant.now();
        if (r == null) for (Image i : ended) if (i.pid == pid) r = i;
        if (r == null) return;
        if (r.end == null) retire(r, now);
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("pid", pid);
        d.put("exitStatus", exitCode);
        d.put("durationMs", Duration.between(r.born, r.end).toMillis());
        d.put("observed", exitCode == null ? "stopped by Crucible" : "waited for");
        rec.append(EventKind.PROCESS_END, null, r.seq > 0 ? r.seq : null, d);
    }

    private List<Image> images() {
        List<Image> all = new ArrayList<>(live.values());
        all.addAll(ended);
        return all;
    }

    private void retire(Image i, Instant at) {
        if (i == null) return;
        if (i.end == null) i.end = at;
        ended.addLast(i);
        if (ended.size() > ENDED) ended.removeFirst();
    }

    /**
     * Its start event, after its parent's (the parent's image it was forked from, emitted first if it was not yet): a
     * reader finds each process's parent before it, as the last start of the parent's pid.
     */
    private void emitStart(Image i) {
        emitStart(i, 0);
    }

    private void emitStart(Image i, int depth) {
        if (i.pid == root && rootSeq > 0) { // another image of the root (its fork or exec reported late): recorded once
            i.seq = rootSeq;
            return;
        }
        if (depth < 64 && i.pid != root) {
            Image parent = null;
            for (Image p : images()) {
                if (p.pid == i.ppid && p.agent && !p.start.isAfter(i.born) && (parent == null || p.start.isAfter(parent.start))) parent = p;
            }
            if (parent != null && parent.seq == 0) emitStart(parent, depth + 1);
        }
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("pid", i.pid);
        d.put("ppid", i.ppid);
        String command = i.command == null && i.pid == root ? agentCommand : i.command; // the root's fork, before its exec reached us
        d.put("command", command == null ? "[unknown: its parent is not the agent's]" : command);
        if (i.cwd != null) d.put("cwd", i.cwd);
        d.put("start", i.start.toString());
        if (!i.exec && i.pid != root) d.put("forkOf", "its parent's program: it had run no program of its own then");
        if (i.pid == root) {
            d.put("root", true);
            if (agentCommand != null) d.put("agentCommand", agentCommand);
        }
        d.put("observed", "kernel process events");
        i.seq = rec.append(EventKind.PROCESS_START, null, null, d);
        if (i.pid == root) rootSeq = i.seq;
    }
}
