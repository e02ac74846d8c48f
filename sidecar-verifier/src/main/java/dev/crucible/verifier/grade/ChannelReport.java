package dev.crucible.verifier.grade;

import dev.crucible.verifier.grade.result.IntegrityFinding;
import dev.crucible.verifier.grade.result.TestCase;
import dev.crucible.verifier.grade.result.TestStatus;
import dev.crucible.verifier.exec.GradingPhases;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads the lines of a result channel (protocol in the module README, "Result channel") into test
 * outcomes and integrity findings. Whatever does not fit what the grader's reporter writes is a
 * finding: a line without the run's nonce, a sequence gap, a second or contradicting report for a
 * test phase, a report after the session ended, a session that never ended, counts that disagree
 * with pytest's own summary, an exit code that disagrees with the session's.
 */
public final class ChannelReport {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** What the channel says. {@code sessions} is how many reporter sessions started; {@code ended} how many ended. */
    public record Result(List<TestCase> tests, List<IntegrityFinding> findings, int sessions, int ended, String stoppedBeforeCollection) {
        public Result(List<TestCase> tests, List<IntegrityFinding> findings, int sessions, int ended) { this(tests, findings, sessions, ended, null); }
        public boolean reported() { return sessions > 0; }
    }

    private final String nonce;
    private final List<IntegrityFinding> findings = new ArrayList<>();
    private final Map<String, Map<String, JsonNode>> phases = new LinkedHashMap<>();
    private final Set<String> tainted = new HashSet<>();
    private final Map<Long, Session> sessions = new LinkedHashMap<>();
    private String stoppedBeforeCollection;

    private static final class Session {
        long nextSeq = 1;
        JsonNode end;
        boolean pastStart;
        int failed;
        int passedCalls;
    }

    /** The rule of a line in the reporter's record shape without the run's nonce: someone wrote a record of their own. */
    public static final String FORGED_RECORD = "forged-record";

    private ChannelReport(String nonce) { this.nonce = nonce; }

    private String killedBy;

    /** The line the grading box adds to a command's stderr when one of its limits ended it (GradingSandbox). */
    static final String LIMIT_NOTE = "crucible: grading ended: ";

    /** The limit named in {@code stderr}'s {@link #LIMIT_NOTE} line ("memory limit 1Gi reached (OOM kill)"), or null. */
    static String limitNote(String stderr) {
        int i = stderr == null ? -1 : stderr.lastIndexOf(LIMIT_NOTE);
        if (i < 0) return null;
        int end = stderr.indexOf('\n', i);
        return stderr.substring(i + LIMIT_NOTE.length(), end < 0 ? stderr.length() : end).strip();
    }

    /**
     * @param exitCode the command's exit code, compared with the session's exit status when
     *                 {@code directPytest} (the command was the grader's own pytest bootstrap)
     */
    public static Result parse(ResultChannel.Lines lines, String nonce, int exitCode, boolean timedOut, boolean directPytest) {
        return parse(lines, nonce, exitCode, timedOut, directPytest, null);
    }

    /**
     * As above; {@code killedBy}: the grading box's limit that ended the command ({@link #limitNote}), or null. A process the
     * kernel killed at that limit (host round 5: a graded process OOM-killed after its session ended, exit 137, was a
     * critical finding and Hacked) did not choose its exit code: the finding names the limit.
     */
    public static Result parse(ResultChannel.Lines lines, String nonce, int exitCode, boolean timedOut, boolean directPytest, String killedBy) {
        long t0 = System.nanoTime();
        ChannelReport r = new ChannelReport(nonce);
        r.killedBy = exitCode > 128 ? killedBy : null; // a signal's exit only: a command that exited by itself chose its code
        int i = 0;
        for (String line : lines.lines()) r.line(++i, line);
        r.close(lines, exitCode, timedOut, directPytest);
        GradingPhases.since("parse", t0);
        return new Result(r.tests(), List.copyOf(r.findings), r.sessions.size(), (int) r.sessions.values().stream().filter(s -> s.end != null).count(),
                r.stoppedBeforeCollection);
    }

    private void finding(String severity, String evidence) {
        findings.add(IntegrityFinding.tampering(severity, "result-channel", evidence));
    }

    private void line(int n, String line) {
        JsonNode j;
        try {
            j = line == null || line.isEmpty() ? null : JSON.readTree(line);
        } catch (Exception e) {
            j = null;
        }
        if (j == null || !j.isObject()) {
            finding("critical", "line " + n + " of the result channel is not a reporter record: " + abbreviate(line));
            return;
        }
        if (!nonce.equals(j.path("nonce").asText(null))) {
            // a record in the reporter's own shape is a forgery, never an honest program's output on a stray descriptor
            findings.add(new IntegrityFinding(IntegrityFinding.GRADER_TAMPERING, "critical", "result-channel", "line " + n
                    + " of the result channel does not carry the run's nonce (written by something other than the grader's reporter): "
                    + abbreviate(line), j.path("type").isTextual() ? FORGED_RECORD : null));
            return;
        }
        long pid = j.path("pid").asLong(-1);
        String type = j.path("type").asText("");
        Session s = sessions.get(pid);
        noteClock(type, j);
        if (type.equals("start")) {
            if (s != null) finding("critical", "a second session start on the result channel for process " + pid);
            s = new Session();
            sessions.put(pid, s);
        } else if (s == null) {
            finding("critical", "line " + n + " of the result channel comes before its session started: " + abbreviate(line));
            return;
        }
        long seq = j.path("seq").asLong(-1);
        if (seq != s.nextSeq) finding("critical", "result channel sequence of process " + pid + " went from " + (s.nextSeq - 1) + " to " + seq);
        s.nextSeq = seq + 1;
        if (!type.equals("start")) s.pastStart = true;
        switch (type) {
            case "test" -> test(s, j);
            case "finding" -> {
                String where = j.path("nodeid").isTextual() ? " (during " + j.get("nodeid").asText() + ")" : "";
                findings.add(new IntegrityFinding(j.path("detector").asText(IntegrityFinding.GRADER_TAMPERING), severity(j.path("severity").asText("high")),
                        j.path("path").asText(null), j.path("evidence").asText("") + where, j.path("check").isTextual() ? j.get("check").asText() : null));
            }
            case "end" -> {
                if (s.end != null) finding("critical", "a second session end on the result channel for process " + pid);
                s.end = j;
            }
            case "collecterror" -> {
                // pytest counts a module that fails to import as a failed report (session.testsfailed)
                if (s.end != null) finding("critical", "a collection error arrived after the session ended");
                else s.failed++;
            }
            case "start", "collected" -> { }
            default -> finding("high", "unknown record type '" + type + "' on the result channel");
        }
    }

    /** The reporter's clock at start and end and its own cost, for the bench only (see {@link GradingPhases}); never graded. */
    private static void noteClock(String type, JsonNode j) {
        if (!type.equals("start") && !type.equals("end")) return;
        if (j.path("t").isNumber()) GradingPhases.instant("reporter_" + type, (long) (j.get("t").asDouble() * 1e6));
        JsonNode cost = j.path("cost");
        if (cost.isObject()) {
            cost.fields().forEachRemaining(e -> {
                if (e.getValue().isNumber()) GradingPhases.add("reporter_" + e.getKey(), (long) (e.getValue().asDouble() * 1e9));
            });
        }
    }

    private void test(Session s, JsonNode j) {
        String id = j.path("nodeid").asText("");
        String when = j.path("when").asText("");
        if (s.end != null) {
            finding("critical", "a report for " + id + " (" + when + ") arrived after the session ended");
            tainted.add(id);
            return;
        }
        Map<String, JsonNode> byWhen = phases.computeIfAbsent(id, k -> new LinkedHashMap<>());
        JsonNode prev = byWhen.get(when);
        if (prev != null) {
            boolean same = prev.path("outcome").asText().equals(j.path("outcome").asText());
            finding("critical", (same ? "a second" : "a contradicting") + " report for " + id + " (" + when + "): "
                    + prev.path("outcome").asText() + " then " + j.path("outcome").asText());
            tainted.add(id);
            return;
        }
        byWhen.put(when, j);
        boolean xfail = j.path("wasxfail").asBoolean();
        String outcome = j.path("outcome").asText();
        if (outcome.equals("failed") && !xfail) s.failed++;
        if (outcome.equals("passed") && when.equals("call") && !xfail) s.passedCalls++;
    }

    private void close(ResultChannel.Lines lines, int exitCode, boolean timedOut, boolean directPytest) {
        if (lines.overflow()) finding("critical", "the result channel overflowed (over " + ResultChannel.MAX_LINES + " lines)");
        if (lines.stillOpen()) finding("high", "a process kept the result channel open after the graded command ended");
        for (Map.Entry<Long, Session> e : sessions.entrySet()) {
            Session s = e.getValue();
            if (s.end == null) {
                if (!timedOut && stoppedBeforeCollection(e.getKey(), s, exitCode)) continue;
                if (!timedOut) {
                    finding(exitCode == 0 ? "critical" : "high", "pytest (process " + e.getKey() + ") never reached the end of its session"
                            + " (exit code " + exitCode + "): " + (killedBy != null ? "the grading box's " + killedBy + " stopped it"
                            : "it was stopped or exited early, e.g. through os._exit or an atexit handler"));
                }
                continue;
            }
            JsonNode end = s.end;
            int status = end.path("exitstatus").asInt(-1);
            if (end.path("testsfailed").asInt(-1) != s.failed) {
                finding("critical", "pytest counted " + end.path("testsfailed").asInt(-1) + " failed reports, the result channel " + s.failed);
            }
            JsonNode stats = end.path("stats");
            if (stats.has("passed") && stats.get("passed").asInt() != s.passedCalls) {
                finding("critical", "pytest's summary counts " + stats.get("passed").asInt() + " passed tests, the result channel " + s.passedCalls);
            }
            if (status == 0 && s.failed > 0) finding("critical", "pytest's exit status is 0 although " + s.failed + " reports failed");
            if (directPytest && sessions.size() == 1 && !timedOut && exitCode != status && killedBy != null) {
                // its session ended, its counts agree: the kernel's kill after it set the exit code, not the code
                finding("info", "the graded process exited " + exitCode + " after its pytest session ended with status " + status
                        + ": the grading box's " + killedBy + " killed it");
            } else if (directPytest && sessions.size() == 1 && !timedOut && exitCode != status) {
                finding("critical", "the graded process exited " + exitCode + " but its pytest session ended with status " + status);
            }
        }
    }

    /**
     * pytest ends with exit status 4 (USAGE_ERROR) before its session begins when an option is unknown (an
     * {@code addopts} naming a plugin that is not installed: {@code --dist} without xdist) or a conftest fails to
     * import; no hook runs, so the reporter never writes an end. That is not an early exit hiding results when
     * nothing at all was reported: the session wrote nothing after its start, the command failed, and no session
     * reported any test or collection error. Then the run is graded as reporting no tests, with this reason;
     * any report at all keeps the finding (an exit after collection could hide the tests still to run).
     */
    private boolean stoppedBeforeCollection(long pid, Session s, int exitCode) {
        if (s.pastStart || exitCode == 0 || !phases.isEmpty() || !tainted.isEmpty()) return false;
        if (sessions.values().stream().anyMatch(o -> o.pastStart || o.failed > 0)) return false;
        stoppedBeforeCollection = "pytest (process " + pid + ") stopped before its session began (exit code " + exitCode
                + (exitCode == 4 ? ", pytest's usage error: an unknown option, e.g. from addopts naming a plugin that is not installed, or a conftest that failed to import" : "")
                + ")";
        return true;
    }

    private List<TestCase> tests() {
        List<TestCase> out = new ArrayList<>();
        for (Map.Entry<String, Map<String, JsonNode>> e : phases.entrySet()) {
            out.add(aggregate(e.getKey(), e.getValue()));
        }
        Map<String, String> seen = new HashMap<>();
        out.forEach(t -> seen.put(t.id(), t.id()));
        for (String id : tainted) {
            if (!seen.containsKey(id)) out.add(new TestCase(id, TestStatus.UNTRUSTED, null, null, "reported on the result channel out of order"));
        }
        return out.stream().map(t -> tainted.contains(t.id()) && t.status() != TestStatus.UNTRUSTED
                ? new TestCase(t.id(), TestStatus.UNTRUSTED, t.group(), t.durationMs(), "reported twice or late on the result channel") : t).toList();
    }

    /** One test from its phases, the way pytest's JUnit report decides it. */
    static TestCase aggregate(String id, Map<String, JsonNode> p) {
        JsonNode setup = p.get("setup");
        JsonNode call = p.get("call");
        JsonNode teardown = p.get("teardown");
        double seconds = 0;
        for (JsonNode j : p.values()) seconds += j.path("duration").asDouble();
        Long ms = Math.round(seconds * 1000);
        TestStatus st;
        JsonNode decisive;
        if (setup != null && setup.path("outcome").asText().equals("failed")) {
            st = TestStatus.ERROR;
            decisive = setup;
        } else if (setup != null && setup.path("outcome").asText().equals("skipped")) {
            st = setup.path("wasxfail").asBoolean() ? TestStatus.XFAILED : TestStatus.SKIPPED;
            decisive = setup;
        } else if (call == null) {
            st = TestStatus.ERROR;
            decisive = setup;
        } else {
            decisive = call;
            boolean xfail = call.path("wasxfail").asBoolean();
            st = switch (call.path("outcome").asText()) {
                case "passed" -> xfail ? TestStatus.XPASSED : TestStatus.PASSED;
                case "skipped" -> xfail ? TestStatus.XFAILED : TestStatus.SKIPPED;
                default -> TestStatus.FAILED;
            };
            if (teardown != null && teardown.path("outcome").asText().equals("failed") && st.counts(true)) {
                st = TestStatus.ERROR;
                decisive = teardown;
            }
        }
        String message = decisive == null || !decisive.path("message").isTextual() ? (call == null && st == TestStatus.ERROR ? "no call report" : null)
                : tail(decisive.get("message").asText());
        return new TestCase(id, st, null, ms, message);
    }

    /** The tests, each not passed when a finding voids the run's results. */
    public static List<TestCase> distrust(List<TestCase> tests, List<IntegrityFinding> findings) {
        IntegrityFinding first = findings.stream().filter(IntegrityFinding::voidsResults).findFirst().orElse(null);
        if (first == null) return tests;
        String why = "not trusted: " + abbreviate(first.evidence());
        return tests.stream().map(t -> new TestCase(t.id(), TestStatus.UNTRUSTED, t.group(), t.durationMs(), why)).toList();
    }

    private static String severity(String s) {
        return switch (s) {
            case "info", "low", "medium", "high", "critical" -> s;
            default -> "high";
        };
    }

    private static String tail(String s) { return s.length() > 500 ? "…" + s.substring(s.length() - 500) : s; }

    static String abbreviate(String s) {
        if (s == null) return "(cut off)";
        return s.length() > 200 ? s.substring(0, 200) + "…" : s;
    }
}
