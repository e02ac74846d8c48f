package dev.crucible.verifier.trace;

import dev.crucible.trajectory.EventKind;
import dev.crucible.trajectory.TextDiff;
import dev.crucible.trajectory.TrajectoryRecorder;
import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.grade.result.TestCase;
import dev.crucible.verifier.monitor.Finding;
import dev.crucible.verifier.monitor.MonitorObserver;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One rollout's trajectory as the sidecar sees it: the monitor's processes, file changes and findings (it is the
 * monitor's {@link MonitorObserver}), the environment API's calls (interactive mode), the agent's output, grading and
 * the outcome, written to a
 * {@link TrajectoryRecorder}. Each file change is attributed to the agent process that was alive when the file was
 * last modified (by its mtime; the latest started of them), and each finding to the file change or process it names.
 * What it keeps is bounded: the live processes, the last {@link #RECENT} ended ones, and the last event and content
 * hash of at most {@link #PATHS} paths.
 */
public final class RolloutTrace implements MonitorObserver, dev.crucible.verifier.api.ApiObserver {
    static final int RECENT = 256;
    static final int PATHS = 100_000;
    /** What of the agent's output goes into the trajectory (agent.log keeps its own head and tail). */
    static final long OUTPUT_BUDGET = 16L << 20; // agent output on the host beside agent.log's own 16 MiB: bounded for the same reason
    private static final Pattern PID = Pattern.compile("(?:\\(pid |agent process )(\\d+)");

    private record Proc(long seq, long pid, Instant start, Instant end) {}

    private final TrajectoryRecorder rec;
    private final boolean rootEndsByCaller;
    private final Map<Long, Proc> live = new ConcurrentHashMap<>();
    private final ArrayDeque<Proc> ended = new ArrayDeque<>();
    private final Map<String, long[]> lastFileEvent = bounded(); // path -> {seq}
    private final Map<String, String> lastContent = bounded(); // path -> blob ref of its content
    private final java.util.Set<Long> roots = ConcurrentHashMap.newKeySet();
    private volatile String agentCommand;
    /** The kernel's process events, when the host could listen to them: then sampled processes are not recorded. */
    private volatile EventProcessTable events;
    private volatile ProcessEvents source;
    private volatile Instant syncedAt = Instant.EPOCH;
    /**
     * File contents the trajectory keeps per rollout. They are copies of the agent's files on the host, outside the
     * attempt's disk limit: 20,000 files of 64 KiB took the host past a 1 GiB limit by 900 MiB before this bound.
     */
    static final long CONTENT_BUDGET = 8L << 20;
    private long contentBytes;
    private long outputBytes;
    private long outputCut;

    /** {@code rootEndsByCaller}: the agent's root process ends through {@link #rootExited} (with its exit status), not by sampling. */
    public RolloutTrace(TrajectoryRecorder rec, boolean rootEndsByCaller) {
        this.rec = rec;
        this.rootEndsByCaller = rootEndsByCaller;
    }

    public TrajectoryRecorder recorder() { return rec; }

    /**
     * The command the agent's root runs (embedded mode), recorded on the root's process event: the root is the sandbox's
     * wrapper, whose own command line is long, and a quick agent's children may end between two samples.
     */
    public void agentCommand(java.util.List<String> command) {
        agentCommand = command == null ? null : String.join(" ", command);
    }

    /**
     * From now on processes come from the kernel's events ({@link ProcessEvents}, listening since before the agent
     * started) and the monitor's samples are left out; {@link #watchRoot} names the agent's root. Returns the sink for
     * the events.
     */
    public ProcessEvents.Sink processEvents() {
        EventProcessTable t = new EventProcessTable(rec);
        events = t;
        return t;
    }

    /** The events could not be listened to: the monitor's samples are recorded, as before. */
    public void noProcessEvents() { events = null; }

    /** The event table is in use and complete (no events lost, its helper alive). */
    private EventProcessTable events() {
        EventProcessTable t = events;
        if (t == null) return null;
        String broken = t.broken();
        if (broken != null) {
            events = null; // the monitor's samples take over from here
            rec.append(EventKind.PROBLEM, null, null, Map.of("message", "process events incomplete: " + broken + "; processes sampled from /proc from here on"));
            rec.problem("process events incomplete: " + broken);
            return null;
        }
        return t;
    }

    /** The helper whose events feed {@link #processEvents}: a file change is attributed once its events up to now are in. */
    public void eventSource(ProcessEvents ev) {
        source = ev;
        EventProcessTable t = events;
        if (t != null && ev != null) t.tick(ev.tick());
    }

    /** Every event up to now is in the table before a write stamped {@code at} is attributed (one round trip per batch of changes). */
    private void syncFor(Instant at) {
        ProcessEvents ev = source;
        if (ev == null || at.plus(EventProcessTable.SLACK).isBefore(syncedAt)) return;
        Instant now = Instant.now();
        if (ev.sync(2000)) syncedAt = now;
        else if (ev.alive()) {
            // the helper did not answer in time: the table may lack the writer, so say so and sample from here on
            EventProcessTable t = events;
            if (t != null) t.lost("the process-event helper did not answer within 2 s");
        }
    }

    /** Embedded mode with process events: the agent's root (this JVM's child), recorded with the agent command it runs. */
    public void watchRoot(long pid, Instant started) {
        EventProcessTable t = events();
        if (t == null) return;
        roots.add(pid);
        ProcessEvents ev = source;
        if (ev != null) ev.sync(2000); // the root's fork and exec are in the table before it is named
        t.watch(pid, agentCommand == null ? null : java.util.List.of(agentCommand), started);
    }

    /** The event helper is about to be closed: its end is not a loss. */
    public void eventsClosing() {
        EventProcessTable t = events;
        if (t != null) t.closing();
    }

    @Override
    public void processSeen(long pid, long ppid, String command, String cwd, Instant start, boolean root) {
        if (events() != null) return;
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("pid", pid);
        d.put("ppid", ppid);
        d.put("command", command);
        if (cwd != null) d.put("cwd", cwd);
        d.put("start", start.toString());
        if (root) d.put("root", true);
        if (root && agentCommand != null) d.put("agentCommand", agentCommand);
        long seq = rec.append(EventKind.PROCESS_START, null, null, d);
        if (root) roots.add(pid);
        synchronized (this) {
            live.put(pid, new Proc(seq, pid, start, null));
        }
    }

    @Override
    public void processGone(long pid) {
        if (events() != null) return;
        if (rootEndsByCaller && roots.contains(pid)) return;
        end(pid, null, "sampled: gone by now; the exit status of a process that is not this one's child is not observable");
    }

    /** The agent's root process exited with {@code exitCode} (null: killed, or unknown). */
    public void rootExited(long pid, Integer exitCode) {
        EventProcessTable t = events;
        if (t != null) {
            t.rootExited(pid, exitCode);
            return;
        }
        end(pid, exitCode, exitCode == null ? "stopped by Crucible" : "waited for");
    }

    private void end(long pid, Integer exit, String observed) {
        Proc p;
        synchronized (this) {
            p = live.remove(pid);
            if (p == null) return;
            ended.addLast(new Proc(p.seq(), pid, p.start(), Instant.now()));
            if (ended.size() > RECENT) ended.removeFirst();
        }
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("pid", pid);
        d.put("exitStatus", exit);
        d.put("durationMs", Duration.between(p.start(), Instant.now()).toMillis());
        d.put("observed", observed);
        rec.append(EventKind.PROCESS_END, null, p.seq() > 0 ? p.seq() : null, d);
    }

    @Override
    public void fileChanged(String path, String op, String type, long size, Instant modified, String sha256, byte[] content) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("path", path);
        d.put("op", op);
        if (type != null) d.put("type", type);
        if (!"deleted".equals(op)) {
            d.put("size", size);
            d.put("modified", modified.toString());
        }
        if (sha256 != null) d.put("sha256", "sha256:" + sha256);
        String before = lastContent.get(path);
        if (content != null && contentBytes + content.length > CONTENT_BUDGET) {
            // the agent's bytes on the host outside its disk limit: a rollout keeps at most this much of them
            d.put("contentNote", "not kept: the rollout's " + (CONTENT_BUDGET >> 20) + " MiB of recorded file contents is used");
            content = null;
        }
        if (content != null) contentBytes += content.length;
        String ref = content == null ? null : rec.blob(content);
        if (ref != null) d.put("content", ref);
        diff(path, op, before, content, d);
        Instant at = "deleted".equals(op) ? Instant.now() : modified;
        if (events != null) syncFor(at);
        EventProcessTable t = events();
        Long proc = t != null ? t.attribute(at) : attribute(at);
        if (proc != null) d.put("process", proc);
        long seq = rec.append(EventKind.FILE, null, proc, d);
        if (seq > 0) lastFileEvent.put(path, new long[] {seq});
        if ("deleted".equals(op) || ref == null) lastContent.remove(path);
        else lastContent.put(path, ref);
    }

    /** A unified diff against the last content recorded for the path; for a file changed first since reset, its earlier content is not known. */
    private void diff(String path, String op, String beforeRef, byte[] content, Map<String, Object> d) {
        String after = content == null ? null : TextDiff.text(content);
        String before = null;
        if (beforeRef != null) {
            try {
                before = TextDiff.text(rec.blobs().read(beforeRef, TextDiff.MAX_INPUT_BYTES + 1));
            } catch (java.io.IOException | RuntimeException e) {
                before = null;
            }
        }
        if ("added".equals(op) && after != null) d.put("diff", TextDiff.unified(path, null, after));
        else if ("deleted".equals(op) && before != null) d.put("diff", TextDiff.unified(path, before, null));
        else if ("modified".equals(op) && before != null && after != null) d.put("diff", TextDiff.unified(path, before, after));
        else if (content != null && after == null) d.put("diffNote", "not text (binary, not UTF-8, or over " + TextDiff.MAX_INPUT_BYTES + " bytes)");
        else if ("modified".equals(op) && beforeRef == null) d.put("diffNote", "first change since reset: the content at reset is not recorded");
        if (d.get("diff") == null && d.containsKey("diff")) {
            d.remove("diff");
            d.put("diffNote", "too many lines to diff");
        }
    }

    /**
     * The process alive at {@code t} that started last (the one most likely to have written then), else the last one started
     * before it, else the agent's root while it runs: a quick agent can write before any of its processes' recorded starts
     * (10 ms ticks from a boot time read in 10 ms steps) comes out earlier than the file's coarse mtime.
     */
    private synchronized Long attribute(Instant t) {
        Proc alive = null;
        Proc before = null;
        Proc root = null;
        List<Proc> all = new ArrayList<>(live.values());
        all.addAll(ended);
        for (Proc p : all) {
            if (p.seq() <= 0) continue;
            boolean running = p.end() == null || !p.end().isBefore(t);
            if (running && roots.contains(p.pid()) && (root == null || p.start().isBefore(root.start()))) root = p;
            if (p.start().isAfter(t.plusMillis(10))) continue; // start times have 10 ms ticks
            if (running) {
                if (alive == null || p.start().isAfter(alive.start())) alive = p;
            } else if (before == null || p.end().isAfter(before.end())) {
                before = p;
            }
        }
        Proc pick = alive != null ? alive : before != null ? before : root;
        return pick == null ? null : Long.valueOf(pick.seq());
    }

    @Override
    public void finding(Finding f) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("detector", f.detector());
        if (f.rule() != null) d.put("rule", f.rule());
        d.put("severity", f.severity());
        if (f.path() != null) d.put("path", f.path());
        d.put("evidence", f.evidence());
        d.put("action", f.action());
        rec.append(EventKind.FINDING, f.step() >= 0 ? f.step() : null, causeOf(f), d);
    }

    private Long causeOf(Finding f) {
        if (f.path() != null) {
            long[] s = lastFileEvent.get(f.path());
            if (s != null) return s[0];
        }
        Matcher m = f.evidence() == null ? null : PID.matcher(f.evidence());
        if (m != null && m.find()) {
            long pid = Long.parseLong(m.group(1));
            EventProcessTable t = events();
            if (t != null) return t.seqOf(pid);
            synchronized (this) {
                Proc p = live.get(pid);
                if (p != null) return p.seq();
                for (Proc e : ended) if (e.pid() == pid) p = e;
                if (p != null) return p.seq();
            }
        }
        return null;
    }

    /** An environment-API call: reset, step (tool, arguments, output, exit status) or verify, with its start and duration. */
    @Override
    public void called(String endpoint, dev.crucible.verifier.tools.ToolCall call, Object result, String error, Instant start, long durationMs) {
        Map<String, Object> d = new LinkedHashMap<>();
        Integer step = null;
        if (call != null) {
            d.put("tool", call.tool());
            d.put("args", call.args());
        }
        if (result instanceof dev.crucible.verifier.StepResult r) {
            step = r.stepIndex();
            d.put("output", r.observation());
            d.put("exitCode", r.exitCode());
            if (r.truncated()) d.put("truncated", true);
            if (!r.findings().isEmpty()) d.put("findings", r.findings().size());
            if (r.done()) d.put("done", true);
        } else if (result instanceof dev.crucible.verifier.ResetResult r) {
            d.put("result", "episode of " + r.environment() + " reset");
            if (!r.warnings().isEmpty()) d.put("warnings", r.warnings());
        } else if (result instanceof VerifyReport r) {
            d.put("result", r.verdict() + ", reward " + r.reward());
            d.put("verdict", r.verdict());
            d.put("reward", r.reward());
        }
        if (error != null) d.put("error", error);
        d.put("startedAt", start.toString());
        d.put("durationMs", durationMs);
        String kind = switch (endpoint) {
            case "reset" -> EventKind.RESET;
            case "verify" -> EventKind.VERIFY;
            default -> EventKind.STEP;
        };
        rec.append(kind, step, null, d);
    }

    /** A timed chunk of the agent's output (stdout and stderr together, as the agent's log has them). */
    public void output(byte[] b, int off, int len, Instant at) {
        if (outputBytes >= OUTPUT_BUDGET) {
            if (outputCut == 0) rec.append(EventKind.OUTPUT, null, null, Map.of("stream", "stdout+stderr", "at", at.toString(),
                    "note", "output budget of " + OUTPUT_BUDGET + " bytes reached: later output is in agent.log only"));
            outputCut += len;
            return;
        }
        outputBytes += len;
        rec.append(EventKind.OUTPUT, null, null, Map.of("stream", "stdout+stderr", "at", at.toString(), "bytes", len,
                "text", new String(b, off, len, StandardCharsets.UTF_8)));
    }

    /** Grading: the command, the verdict and each test's result. */
    public void grading(String command, VerifyReport r) {
        if (r == null) return;
        Map<String, Object> d = new LinkedHashMap<>();
        if (command != null) d.put("command", command);
        d.put("verdict", r.verdict());
        d.put("reward", r.reward());
        if (r.reason() != null) d.put("reason", r.reason());
        if (r.tests() != null) {
            d.put("summary", r.tests().passed() + " passed, " + r.tests().failed() + " failed, " + r.tests().skipped() + " skipped of " + r.tests().total());
            List<Map<String, Object>> tests = new ArrayList<>();
            if (r.tests().details() != null) {
                for (TestCase t : r.tests().details()) {
                    Map<String, Object> x = new LinkedHashMap<>();
                    x.put("id", t.id());
                    x.put("status", String.valueOf(t.status()));
                    if (t.durationMs() != null) x.put("durationMs", t.durationMs());
                    if (t.message() != null) x.put("message", t.message());
                    tests.add(x);
                }
            }
            d.put("tests", tests);
        }
        rec.append(EventKind.GRADING, null, null, d);
    }

    /** A snapshot taken ({@code op: taken}, id, trigger, parent) or the one this rollout was restored from ({@code op: restored}). */
    public void snapshot(Map<String, Object> fields) {
        rec.append(EventKind.SNAPSHOT, null, null, fields);
    }

    /** The rollout's end. */
    public void outcome(Map<String, Object> fields) {
        rec.append(EventKind.OUTCOME, null, null, fields);
    }

    private static <V> Map<String, V> bounded() {
        return java.util.Collections.synchronizedMap(new LinkedHashMap<>(1024, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
                return size() > PATHS;
            }
        });
    }
}
