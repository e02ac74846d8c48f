package dev.crucible.console.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Reads one attempt folder's result.json (as {@code crucible run} writes it) into a {@link RolloutSummary}. */
public final class ResultFile {
    /** Far above any result.json crucible run writes (tests' messages are cut); a larger one is refused, not read. */
    public static final int MAX_BYTES = 16 << 20;
    public static final String NAME = "result.json";
    static final ObjectMapper JSON = new ObjectMapper();

    private ResultFile() {}

    /** The whole document, for the trace view's grading and findings; throws naming the file when it is not JSON. */
    public static JsonNode read(Path attemptDir) throws IOException {
        Path f = attemptDir.resolve(NAME);
        byte[] b = SafeFiles.read(f, MAX_BYTES + 1);
        if (b.length > MAX_BYTES) throw new IOException(f + " is larger than " + MAX_BYTES + " bytes, not read");
        try {
            JsonNode n = JSON.readTree(b);
            if (n == null || !n.isObject()) throw new IOException(f + " is not a JSON object");
            return n;
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IOException(f + ": not JSON: " + e.getOriginalMessage()
                    + (e.getLocation() != null ? " (line " + e.getLocation().getLineNr() + ")" : ""));
        }
    }

    /**
     * A rollout whose result.json is refused (too large, not JSON): still listed, never hidden (hostred3 B1: an agent's
     * 17 MiB ref name quoted in a finding made a 35 MB result.json, and its Hacked rollout vanished from the lists). The
     * top-level scalar fields before the first unreadable part (rollout, phase, reason, reward… come before the findings)
     * are read by a streaming parse of the file's first {@link #MAX_BYTES}; {@code message} says why the rest is not.
     * Null when result.json is no regular file (a link is not followed, and is no result crucible wrote).
     */
    public static RolloutSummary refused(String id, Path attemptDir, String why) {
        if (!Files.isRegularFile(attemptDir.resolve(NAME), java.nio.file.LinkOption.NOFOLLOW_LINKS)) return null;
        com.fasterxml.jackson.databind.node.ObjectNode head = JSON.createObjectNode();
        try (com.fasterxml.jackson.core.JsonParser p = JSON.getFactory().createParser(SafeFiles.read(attemptDir.resolve(NAME), MAX_BYTES))) {
            if (p.nextToken() == com.fasterxml.jackson.core.JsonToken.START_OBJECT) {
                while (p.nextToken() == com.fasterxml.jackson.core.JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    com.fasterxml.jackson.core.JsonToken t = p.nextToken();
                    if (t == null) break;
                    if (t == com.fasterxml.jackson.core.JsonToken.START_ARRAY && name.equals("hackFindings")) findings(p, head.putArray(name));
                    else if (t == com.fasterxml.jackson.core.JsonToken.START_OBJECT && name.equals("tests")) head.set(name, scalars(p));
                    else if (t.isStructStart()) p.skipChildren();
                    else if (t.isNumeric()) head.put(name, p.getDoubleValue());
                    else if (t == com.fasterxml.jackson.core.JsonToken.VALUE_STRING && p.getTextLength() <= 4096) head.put(name, p.getText());
                }
            }
        } catch (IOException | RuntimeException cutShort) {
            // the fields read so far are what is listed
        }
        if (head.path("attempt").isNumber()) head.put("attempt", head.get("attempt").asInt());
        head.put("message", "result.json not read in full: " + why);
        return summary(id, head, SafeFiles.isDirectory(attemptDir.resolve("trajectory").resolve("segments")));
    }

    /**
     * The findings of a refused result.json, each read whole or not at all, strings cut at 4 KiB: a Hacked run whose
     * result.json grew past the cap (host round 8, case 30: 90,000 FIFOs listed) lost its findings from every view.
     */
    private static void findings(com.fasterxml.jackson.core.JsonParser p, com.fasterxml.jackson.databind.node.ArrayNode out) throws IOException {
        while (p.nextToken() == com.fasterxml.jackson.core.JsonToken.START_OBJECT) {
            com.fasterxml.jackson.databind.node.ObjectNode f = scalars(p);
            if (out.size() < 1000) out.add(f);
        }
    }

    /** An object's scalar fields (strings cut at 4 KiB), its nested values skipped; the parser at its end. */
    private static com.fasterxml.jackson.databind.node.ObjectNode scalars(com.fasterxml.jackson.core.JsonParser p) throws IOException {
        com.fasterxml.jackson.databind.node.ObjectNode o = JSON.createObjectNode();
        while (p.nextToken() == com.fasterxml.jackson.core.JsonToken.FIELD_NAME) {
            String name = p.currentName();
            com.fasterxml.jackson.core.JsonToken t = p.nextToken();
            if (t.isStructStart()) p.skipChildren();
            else if (t.isNumeric()) o.put(name, p.getDoubleValue()); // as the top level's: a long past range threw and ended the read
            else if (t == com.fasterxml.jackson.core.JsonToken.VALUE_STRING) o.put(name, p.getTextLength() <= 4096 ? p.getText() : p.getText().substring(0, 4096) + "…");
            else if (t.isBoolean()) o.put(name, p.getBooleanValue());
        }
        return o;
    }

    public static RolloutSummary summary(String id, Path attemptDir) throws IOException {
        return summary(id, read(attemptDir), SafeFiles.isDirectory(attemptDir.resolve("trajectory").resolve("segments")));
    }

    /** A summary of a result.json document; {@code trajectoryPresent}: whether the rollout has a trajectory to show. */
    public static RolloutSummary summary(String id, JsonNode r, boolean trajectoryPresent) {
        List<FindingSummary> findings = new ArrayList<>();
        for (JsonNode f : r.path("hackFindings")) {
            String detector = text(f, "detector");
            String rule = text(f, "rule");
            String path = text(f, "path");
            String evidence = text(f, "evidence");
            findings.add(new FindingSummary(detector, rule, text(f, "severity"), path, evidence, text(f, "action"),
                    FindingPattern.id(detector, rule, path, evidence)));
        }
        JsonNode t = r.path("tests");
        RolloutSummary.Tests tests = t.isObject()
                ? new RolloutSummary.Tests(t.path("passed").asInt(), t.path("failed").asInt(), t.path("skipped").asInt(), t.path("total").asInt())
                : null;
        JsonNode tr = r.path("trajectory");
        RolloutSummary.Trajectory trajectory = new RolloutSummary.Trajectory(trajectoryPresent,
                tr.has("complete") ? tr.get("complete").asBoolean() : null, tr.has("events") ? tr.get("events").asLong() : null);
        return new RolloutSummary(id, text(r, "rollout"), text(r, "environment"), text(r, "group"),
                r.has("attempt") && r.get("attempt").isInt() ? r.get("attempt").asInt() : null, text(r, "mode"),
                text(r, "phase"), text(r, "reason"), text(r, "message"), number(r, "reward"), number(r, "testReward"),
                text(r, "verdict"), text(r.path("timings"), "startedAt"),
                r.path("timings").path("totalMs").isNumber() ? r.path("timings").path("totalMs").asLong() : null,
                tests, List.copyOf(findings), trajectory, text(r, "restoredFrom"), snapshotIds(r.path("snapshots")), labels(r.path("labels")));
    }

    private static List<String> snapshotIds(JsonNode list) {
        List<String> ids = new ArrayList<>();
        for (JsonNode s : list) if (text(s, "id") != null && ids.size() < 1000) ids.add(text(s, "id"));
        return List.copyOf(ids);
    }

    /** Labels with scalar values, at most 64 of them (a hand-edited result.json is not trusted to be small). */
    private static java.util.Map<String, String> labels(JsonNode n) {
        java.util.Map<String, String> out = new java.util.TreeMap<>();
        n.fields().forEachRemaining(e -> {
            if (out.size() < 64 && e.getValue().isValueNode() && !e.getValue().isNull()) out.put(e.getKey(), e.getValue().asText());
        });
        return java.util.Collections.unmodifiableMap(out); // sorted: the chips show in one order
    }

    static String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        return v == null || v.isNull() || v.isContainerNode() ? null : v.asText();
    }

    static Double number(JsonNode n, String field) {
        JsonNode v = n.get(field);
        return v != null && v.isNumber() ? v.asDouble() : null;
    }
}
