package dev.crucible.trajectory;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The agent framework's own side of a trajectory (messages, reasoning, tool calls, token metrics), handed in as an ATIF
 * document and merged into the rollout's timeline as {@code agent.step} events. Untrusted: the file must be a regular
 * file (no link followed) of at most {@link #MAX_BYTES}, and every step is checked against the ATIF step fields before
 * anything is stored, so a malformed document is refused whole with the field that is wrong, never half merged.
 */
public final class HandedInTrajectory {
    /** The file's name in the run folder (a local attempt's folder). */
    public static final String FILE = "agent-trajectory.json";
    public static final long MAX_BYTES = 64L << 20;
    static final Set<String> STEP_FIELDS = Set.of("step_id", "timestamp", "source", "model_name", "reasoning_effort", "message",
            "reasoning_content", "tool_calls", "observation", "metrics", "extra", "llm_call_count", "is_copied_context");
    private static final Set<String> SOURCES = Set.of("system", "user", "agent");
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A handed-in document that is not usable; the message names the file and the field. */
    public static final class Refused extends Exception {
        Refused(String message) { super(message); }
    }

    private HandedInTrajectory() {}

    /** Checks {@code file} and appends its steps to {@code rec}; the number of steps stored. */
    public static int merge(Path file, TrajectoryRecorder rec) throws Refused {
        return merge(read(file), file.getFileName().toString(), rec);
    }

    /**
     * The same for a document handed in whole ({@code POST /v1/trajectory}); {@code where} names it in a refusal.
     * Checked whole before the first step is stored: a refused document leaves the trajectory as it was.
     */
    public static int merge(byte[] doc, String where, TrajectoryRecorder rec) throws Refused {
        if (doc.length > MAX_BYTES) throw new Refused(where + ": " + doc.length + " bytes, at most " + MAX_BYTES);
        try {
            return merge(JSON.readTree(doc), where, rec);
        } catch (IOException e) {
            throw new Refused(where + ": not JSON: " + e.getMessage().lines().findFirst().orElse(""));
        }
    }

    @SuppressWarnings("unchecked")
    private static int merge(JsonNode root, String where, TrajectoryRecorder rec) throws Refused {
        if (root == null) throw new Refused(where + ": empty");
        if (!root.isObject()) throw new Refused(where + ": not a JSON object");
        if (!root.path("schema_version").asText("").startsWith("ATIF-v")) throw new Refused(where + ": schema_version: required, ATIF-v<version>");
        if (!root.path("agent").path("name").isTextual()) throw new Refused(where + ": agent.name: required string");
        JsonNode steps = root.path("steps");
        if (!steps.isArray()) throw new Refused(where + ": steps: required array");
        List<Map<String, Object>> checked = new ArrayList<>();
        for (int i = 0; i < steps.size(); i++) checked.add(JSON.convertValue(check(where + ": steps[" + i + "]", steps.get(i)), Map.class));
        String agent = root.path("agent").path("name").asText();
        int stored = 0; // fewer than sent past the trajectory's cap, or once the run has ended and its recorder closed
        for (Map<String, Object> s : checked) if (rec.append(EventKind.AGENT_STEP, null, null, Map.of("agent", agent, "atif", s)) >= 0) stored++;
        return stored;
    }

    private static JsonNode check(String at, JsonNode s) throws Refused {
        if (!s.isObject()) throw new Refused(at + ": not an object");
        for (var it = s.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!STEP_FIELDS.contains(f)) throw new Refused(at + "." + f + ": not an ATIF step field");
        }
        if (!s.path("step_id").canConvertToLong() || s.path("step_id").asLong() < 1) throw new Refused(at + ".step_id: required integer ≥ 1");
        if (!SOURCES.contains(s.path("source").asText(""))) throw new Refused(at + ".source: required, one of system, user, agent");
        if (!(s.path("message").isTextual() || s.path("message").isArray())) throw new Refused(at + ".message: required string or content parts");
        if (s.has("timestamp") && !s.get("timestamp").isTextual()) throw new Refused(at + ".timestamp: must be an ISO 8601 string");
        if (s.has("reasoning_content") && !s.get("reasoning_content").isTextual()) throw new Refused(at + ".reasoning_content: must be a string");
        if (s.has("extra") && !s.get("extra").isObject()) throw new Refused(at + ".extra: must be an object");
        JsonNode calls = s.path("tool_calls");
        if (!calls.isMissingNode() && !calls.isNull()) {
            if (!calls.isArray()) throw new Refused(at + ".tool_calls: must be an array");
            for (int i = 0; i < calls.size(); i++) {
                JsonNode c = calls.get(i);
                if (!c.path("tool_call_id").isTextual() || !c.path("function_name").isTextual() || !c.path("arguments").isObject()) {
                    throw new Refused(at + ".tool_calls[" + i + "]: tool_call_id and function_name (strings) and arguments (object) are required");
                }
            }
        }
        return s;
    }

    private static JsonNode read(Path file) throws Refused {
        try {
            if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) throw new Refused(file + ": not a regular file (a link or a special file is not read)");
            long size = Files.size(file);
            if (size > MAX_BYTES) throw new Refused(file + ": " + size + " bytes, at most " + MAX_BYTES);
            try (InputStream in = Files.newInputStream(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
                return JSON.readTree(in.readNBytes((int) MAX_BYTES));
            }
        } catch (IOException e) {
            throw new Refused(file.getFileName() + ": not JSON: " + e.getMessage().lines().findFirst().orElse(""));
        }
    }
}
