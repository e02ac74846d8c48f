package dev.crucible.trajectory;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Writes a trajectory folder as one Harbor ATIF v1.8 document, streaming (one event in memory at a time). Every
 * stored event is one step, in order: what the agent did (a process it started, its output, an interactive tool
 * call, a handed-in framework step) has {@code source: agent}; what Crucible observed (file changes, findings,
 * grading, the outcome) {@code source: system}. Crucible's own fields go where ATIF allows extensions: each step's
 * {@code extra.crucible} ({@code seq}, {@code kind}, {@code cause} and {@code causeStep}: the step it follows from,
 * {@code data}: the event's fields, blob references relative to the trajectory folder) and the root's
 * {@code extra.crucible} (the recorder's status, problems met while reading).
 */
public final class AtifExport {
    public static final String SCHEMA_VERSION = "ATIF-v1.8";
    public static final String FILE = "trajectory.atif.json";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The agent the document names (ATIF requires a name and a version). */
    public record AgentInfo(String name, String version, Map<String, Object> extra) {}

    private AtifExport() {}

    /** The least a stored document may take, whatever its folder holds already. */
    static final long MIN_STORED = 1L << 20;

    /** As {@link #write(Path, String, AgentInfo, long)} under the default cap ({@link RecorderLimits#defaults}). */
    public static List<String> write(Path dir, String sessionId, AgentInfo agent) throws IOException {
        return write(dir, sessionId, agent, RecorderLimits.defaults().capBytes());
    }

    /**
     * Writes {@code dir}/trajectory.atif.json (under a temporary name, then moved: never half a document); the problems met
     * reading. Compact, and within the trajectory's cap ({@code capBytes}) with the segments and blobs it is made from (at
     * least {@link #MIN_STORED}): past that the steps stop and the document says so. The folder lies outside the attempt's
     * disk limit, bounded by the cap alone, and the document of an exec storm was 2.8 times its segments on top of it (host
     * round 6, P2). The whole is exported on demand ({@code crucible trace --atif}, the console, the trace store).
     */
    public static List<String> write(Path dir, String sessionId, AgentInfo agent, long capBytes) throws IOException {
        long budget = Math.max(MIN_STORED, capBytes - storedBytes(dir));
        Path tmp = Files.createTempFile(dir, ".atif-", ".tmp");
        try {
            List<String> problems;
            try (OutputStream out = Files.newOutputStream(tmp)) {
                problems = export(dir, sessionId, agent, out, budget, false);
            }
            Files.move(tmp, dir.resolve(FILE), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return problems;
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** The whole trajectory as one document, indented: on demand, streamed to whoever asked. */
    public static List<String> export(Path dir, String sessionId, AgentInfo agent, OutputStream out) throws IOException {
        return export(dir, sessionId, agent, out, Long.MAX_VALUE, true);
    }

    /** The bytes of the trajectory's own files (segments, blobs), not a document written from them. */
    static long storedBytes(Path dir) throws IOException {
        long[] sum = {0};
        try (var files = Files.walk(dir)) {
            files.filter(f -> Files.isRegularFile(f, java.nio.file.LinkOption.NOFOLLOW_LINKS))
                    .filter(f -> !f.getFileName().toString().equals(FILE) && !f.getFileName().toString().startsWith(".atif-"))
                    .forEach(f -> {
                        try {
                            sum[0] += Files.size(f);
                        } catch (IOException e) {
                            // gone meanwhile
                        }
                    });
        }
        return sum[0];
    }

    private static List<String> export(Path dir, String sessionId, AgentInfo agent, OutputStream sink, long budget, boolean pretty) throws IOException {
        List<String> problems = new ArrayList<>();
        // seq -> step id: they differ only after a gap (an event lost to a failed write), so only the gaps are kept
        TreeMap<Long, Long> offsets = new TreeMap<>();
        offsets.put(0L, 0L);
        long[] stepId = {0};
        long[] written = {0}; // steps in the document; stepId counts every event read
        Map<String, Object> status = new LinkedHashMap<>();
        BlobStore blobs = new BlobStore(dir);
        Counted out = new Counted(sink);
        try (JsonGenerator g = JSON.getFactory().createGenerator(out, JsonEncoding.UTF8)) {
            // every character past ASCII written as \\uXXXX: the agent's names and output carry C1 controls and bidi
            // overrides (U+009B, U+202E) that a terminal acts on when `crucible trace --atif` prints (host round 6, P1)
            g.enable(com.fasterxml.jackson.core.json.JsonWriteFeature.ESCAPE_NON_ASCII.mappedFeature());
            if (pretty) g.useDefaultPrettyPrinter();
            g.writeStartObject();
            g.writeStringField("schema_version", SCHEMA_VERSION);
            if (sessionId != null) g.writeStringField("session_id", sessionId);
            g.writeObjectFieldStart("agent");
            g.writeStringField("name", agent.name());
            g.writeStringField("version", agent.version());
            if (agent.extra() != null && !agent.extra().isEmpty()) g.writeObjectField("extra", agent.extra());
            g.writeEndObject();
            g.writeArrayFieldStart("steps");
            IOException[] failed = {null};
            TrajectoryReader.read(dir, e -> {
                if (failed[0] != null) return;
                long id = ++stepId[0];
                if (e.seq() - id != offsets.lastEntry().getValue()) offsets.put(e.seq(), e.seq() - id);
                if (EventKind.END.equals(e.kind())) status.putAll(e.data());
                if (written[0] < id - 1 || out.count + Math.max(0, g.getOutputBuffered()) > budget) return; // past the budget: read on for the status
                try {
                    g.writeObject(step(e, id, e.cause() == null ? null : stepOf(offsets, e.cause()), blobs));
                    written[0] = id;
                } catch (IOException ex) {
                    failed[0] = ex;
                }
            }, problems::add);
            if (failed[0] != null) throw failed[0];
            g.writeEndArray();
            g.writeStringField("notes", "Written by Crucible from its trajectory segments. Each step's extra.crucible holds the event"
                    + " (seq, kind, cause, data); blob references (sha256:…) name files under blobs/sha256/ beside this document.");
            g.writeObjectFieldStart("final_metrics");
            g.writeNumberField("total_steps", written[0]);
            g.writeEndObject();
            Map<String, Object> crucible = new LinkedHashMap<>();
            crucible.put("format", "crucible-trajectory/1");
            if (written[0] < stepId[0]) {
                crucible.put("truncated", Map.of("stepsWritten", written[0], "events", stepId[0], "why", "the stored document keeps the"
                        + " trajectory folder within its cap (" + budget + " bytes were left for it); `crucible trace --atif` exports the whole"));
            }
            crucible.put("status", status.isEmpty() ? Map.of("complete", false, "note", "no end-of-trajectory summary: the run did not close it") : status);
            if (!problems.isEmpty()) crucible.put("readProblems", problems);
            g.writeObjectField("extra", Map.of("crucible", crucible));
            g.writeEndObject();
        }
        return problems;
    }

    private static Long stepOf(TreeMap<Long, Long> offsets, long seq) {
        var e = offsets.floorEntry(seq);
        long id = seq - (e == null ? 0 : e.getValue());
        return id >= 1 ? id : null;
    }

    static Map<String, Object> step(TraceEvent e, long id, Long causeStep, BlobStore blobs) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("step_id", id);
        s.put("timestamp", e.time());
        Map<String, Object> crucible = new LinkedHashMap<>();
        crucible.put("seq", e.seq());
        crucible.put("kind", e.kind());
        if (e.step() != null) crucible.put("step", e.step());
        if (e.cause() != null) crucible.put("cause", e.cause());
        if (causeStep != null) crucible.put("causeStep", causeStep);
        crucible.put("data", e.data());
        String call = "call-" + e.seq();
        switch (e.kind()) {
            case EventKind.PROCESS_START -> {
                s.put("source", "agent");
                s.put("message", TraceText.summary(e));
                Map<String, Object> args = new LinkedHashMap<>();
                args.put("command", e.data().get("command"));
                if (e.data().get("cwd") != null) args.put("cwd", e.data().get("cwd"));
                if (e.data().get("agentCommand") != null) args.put("agentCommand", e.data().get("agentCommand"));
                s.put("tool_calls", List.of(Map.of("tool_call_id", call, "function_name", "exec", "arguments", args)));
            }
            case EventKind.STEP -> {
                s.put("source", "agent");
                s.put("message", TraceText.summary(e));
                Object args = e.data().get("args");
                s.put("tool_calls", List.of(Map.of("tool_call_id", call, "function_name", String.valueOf(e.data().get("tool")),
                        "arguments", args instanceof Map<?, ?> ? args : Map.of())));
                Object output = e.data().get("output");
                s.put("observation", Map.of("results", List.of(Map.of("source_call_id", call, "content", output instanceof String t ? t : String.valueOf(output)))));
            }
            case EventKind.OUTPUT -> {
                s.put("source", "agent");
                s.put("message", e.text("text") == null ? "" : e.text("text"));
            }
            case EventKind.AGENT_STEP -> {
                // the framework's own step as it handed it in (checked then), its long strings read back from their blobs
                Object atif = restore(e.data().get("atif"), blobs);
                if (atif instanceof Map<?, ?> m) m.forEach((k, v) -> {
                    if (!"step_id".equals(k) && !"extra".equals(k)) s.put(String.valueOf(k), v);
                });
                crucible.remove("data");
                crucible.put("agent", e.data().get("agent"));
                Map<String, Object> extra = new LinkedHashMap<>();
                if (atif instanceof Map<?, ?> m && m.get("extra") instanceof Map<?, ?> x) x.forEach((k, v) -> extra.put(String.valueOf(k), v));
                extra.put("crucible", crucible);
                s.putIfAbsent("message", "");
                s.putIfAbsent("source", "agent");
                s.put("extra", extra);
                return s;
            }
            default -> {
                s.put("source", "system");
                s.put("message", TraceText.summary(e));
            }
        }
        s.put("extra", Map.of("crucible", crucible));
        return s;
    }

    /** {@code v} with every blob reference the recorder put in place of a long string replaced by that string again. */
    private static Object restore(Object v, BlobStore blobs) {
        if (v instanceof Map<?, ?> m && m.size() == 3 && m.get("blob") instanceof String ref && m.containsKey("head")) {
            try {
                return new String(blobs.read(ref, 64 << 20), java.nio.charset.StandardCharsets.UTF_8);
            } catch (IOException | RuntimeException ex) {
                return String.valueOf(m.get("head")); // the blob was dropped (cap) or is gone: its head is what is left
            }
        }
        if (v instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            m.forEach((k, x) -> out.put(String.valueOf(k), restore(x, blobs)));
            return out;
        }
        if (v instanceof List<?> l) return l.stream().map(x -> restore(x, blobs)).toList();
        return v;
    }

    /** Counts what passes, for the stored document's budget. */
    private static final class Counted extends java.io.FilterOutputStream {
        long count;

        Counted(OutputStream out) { super(out); }

        @Override
        public void write(int b) throws IOException {
            out.write(b);
            count++;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
            count += len;
        }
    }
}
