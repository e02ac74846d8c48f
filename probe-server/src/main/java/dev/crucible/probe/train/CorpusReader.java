package dev.crucible.probe.train;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a probe corpus, one JSON object per line:
 * <pre>{"id": "r1", "text": "…" | "turns": ["…", …], "k": 2, "n": 8, "group": "repo-a", "valid": true,
 *  "solvers": {"qwen-3b": {"k": 2, "n": 8}, "qwen-7b": {"k": 6, "n": 8}}}</pre>
 * {@code k}/{@code n} are required for training (unless a solver named in {@code solvers} is chosen)
 * and optional for scoring; the group field (default {@code group}, any other with {@code groupKey})
 * defaults to the id (every row its own group); {@code valid} defaults to true; {@code solvers} is
 * optional. Errors name line and field.
 */
public final class CorpusReader {
    private static final ObjectMapper JSON = new ObjectMapper();

    private CorpusReader() {
    }

    public static List<CorpusRow> read(Path file, boolean labelsRequired) throws IOException {
        return read(file, labelsRequired, "group");
    }

    public static List<CorpusRow> read(Path file, boolean labelsRequired, String groupKey) throws IOException {
        return read(file, labelsRequired, groupKey, null);
    }

    /**
     * With a solver named, each row's labels are that solver's counts from its {@code solvers} field
     * (a row without them is an error naming its line); without one, the top-level k/n.
     */
    public static List<CorpusRow> read(Path file, boolean labelsRequired, String groupKey, String solver)
            throws IOException {
        List<CorpusRow> rows = new ArrayList<>();
        try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            int lineNo = 0;
            while ((line = r.readLine()) != null) {
                lineNo++;
                if (line.isBlank()) {
                    continue;
                }
                try {
                    CorpusRow row = parse(JSON.readTree(line), lineNo, labelsRequired && solver == null, groupKey);
                    rows.add(solver == null ? row : row.forSolver(solver));
                } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                    throw new IOException(file + ":" + lineNo + ": not valid JSON: " + e.getOriginalMessage());
                } catch (IllegalArgumentException e) {
                    throw new IOException(file + ":" + lineNo + ": " + e.getMessage());
                }
            }
        }
        if (rows.isEmpty()) {
            throw new IOException(file + " has no rows");
        }
        return rows;
    }

    static CorpusRow parse(JsonNode n, int lineNo, boolean labelsRequired, String groupKey) {
        if (!n.isObject()) {
            throw new IllegalArgumentException("each line must be a JSON object");
        }
        String id = n.hasNonNull("id") ? n.get("id").asText() : "line-" + lineNo;
        List<String> turns = new ArrayList<>();
        boolean hasText = n.hasNonNull("text");
        boolean hasTurns = n.hasNonNull("turns");
        if (hasText == hasTurns) {
            throw new IllegalArgumentException("field 'text' or 'turns': exactly one is required");
        }
        if (hasText) {
            turns.add(requireText(n.get("text"), "text"));
        } else {
            JsonNode t = n.get("turns");
            if (!t.isArray() || t.isEmpty()) {
                throw new IllegalArgumentException("field 'turns' must be a non-empty array of strings");
            }
            for (int i = 0; i < t.size(); i++) {
                turns.add(requireText(t.get(i), "turns[" + i + "]"));
            }
        }
        int k = -1;
        int nAttempts = -1;
        if (n.has("k") || n.has("n") || labelsRequired) {
            if (!n.path("k").isIntegralNumber() || !n.path("n").isIntegralNumber()) {
                throw new IllegalArgumentException("fields 'k' and 'n' must be integers (k of n solver attempts)"
                        + (n.path("solvers").isObject() ? "; or pick one of the row's solvers with --solver: "
                        + fieldNames(n.get("solvers")) : ""));
            }
            CorpusRow.Counts c = counts(n, "");
            k = c.k();
            nAttempts = c.n();
        }
        java.util.Map<String, CorpusRow.Counts> solvers = new java.util.TreeMap<>();
        if (n.has("solvers")) {
            JsonNode s = n.get("solvers");
            if (!s.isObject()) {
                throw new IllegalArgumentException("field 'solvers' must be an object of {\"k\": …, \"n\": …} by solver name");
            }
            for (String name : fieldNames(s)) {
                JsonNode c = s.get(name);
                if (!c.isObject() || !c.path("k").isIntegralNumber() || !c.path("n").isIntegralNumber()) {
                    throw new IllegalArgumentException("field 'solvers." + name + "' must be {\"k\": int, \"n\": int}");
                }
                solvers.put(name, counts(c, "solvers." + name + "."));
            }
        }
        String group = n.hasNonNull(groupKey) ? n.get(groupKey).asText() : id;
        if (n.has("valid") && !n.get("valid").isBoolean()) {
            throw new IllegalArgumentException("field 'valid' must be true or false");
        }
        boolean valid = !n.has("valid") || n.get("valid").asBoolean();
        return new CorpusRow(id, turns, k, nAttempts, group, valid, solvers);
    }

    private static CorpusRow.Counts counts(JsonNode n, String prefix) {
        int k = n.get("k").asInt();
        int attempts = n.get("n").asInt();
        if (attempts < 1 || k < 0 || k > attempts) {
            throw new IllegalArgumentException("field '" + prefix + "k' must be in 0..n and '" + prefix
                    + "n' >= 1, got k=" + k + " n=" + attempts);
        }
        return new CorpusRow.Counts(k, attempts);
    }

    private static List<String> fieldNames(JsonNode o) {
        List<String> names = new ArrayList<>();
        o.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static String requireText(JsonNode v, String field) {
        if (!v.isTextual() || v.asText().isBlank()) {
            throw new IllegalArgumentException("field '" + field + "' must be a non-blank string");
        }
        return v.asText();
    }
}
