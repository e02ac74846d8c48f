package dev.crucible.verifier.grade.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The oracle plugin's record of one run (its "out" file): per test whether its verdict came isolated or
 * needs in-process grading (and why), test files whose collection needed in-process grading, the
 * worker's figures (starts, round trips, why each ended, seconds calls waited for a worker to come up: a figure for a
 * reader, never for a grade), and what the code under test tried (its worker's audit). Written by the trusted grading
 * process, which the code under test does not run in.
 */
public record OracleReport(Map<String, Test> tests, Map<String, String> modules, int workerStarts, long calls, List<String> workerEnded,
                           double startWaitSeconds, List<Attempt> attempts) {

    /** What the code under test tried (oracle_audit's kinds, and eq-lenient from the trusted side); see {@link OracleAttempts}. */
    public record Attempt(String kind, String detail) {}

    /** One test: {@code isolated} true when no part of it needs in-process grading. */
    public record Test(boolean isolated, List<String> reasons, List<String> broken, List<String> events) {}

    /** The report in {@code file}; an empty one (nothing isolated) when the file is missing or not the plugin's JSON. */
    public static OracleReport read(Path file) {
        try {
            if (!Files.isRegularFile(file)) return empty();
            JsonNode n = new ObjectMapper().readTree(Files.readAllBytes(file));
            Map<String, Test> tests = new LinkedHashMap<>();
            n.path("tests").fields().forEachRemaining(e -> tests.put(e.getKey(), new Test(
                    "isolated".equals(e.getValue().path("integrity").asText()), texts(e.getValue().path("reasons")),
                    texts(e.getValue().path("broken")), rules(e.getValue().path("events")))));
            Map<String, String> modules = new LinkedHashMap<>();
            n.path("modules").fields().forEachRemaining(e -> modules.put(e.getKey(), e.getValue().asText()));
            JsonNode w = n.path("worker");
            List<Attempt> attempts = new ArrayList<>();
            n.path("attempts").forEach(a -> attempts.add(new Attempt(a.path("kind").asText(), a.path("detail").asText())));
            return new OracleReport(tests, modules, w.path("starts").asInt(), w.path("calls").asLong(), texts(w.path("ended")),
                    w.path("start_wait_s").asDouble(), attempts);
        } catch (IOException | RuntimeException e) {
            return empty();
        }
    }

    /** This report with its test ids as the run's outcome names them (the tree's path made relative: TestIds). */
    public OracleReport forTree(Path root) {
        return new OracleReport(dev.crucible.verifier.grade.result.TestIds.normaliseKeys(tests, root), modules, workerStarts, calls, workerEnded,
                startWaitSeconds, attempts);
    }

    public static OracleReport empty() { return new OracleReport(Map.of(), Map.of(), 0, 0, List.of(), 0, List.of()); }

    /**
     * Whether {@code nodeId} is graded by the in-process run instead: only when the trusted side recorded that the
     * test itself cannot run split (it, or its module at collection, raised NeedsInProcess). A test the record does
     * not name (its module's collection broke, the worker died, no record was written) is never re-run in-process:
     * the code under test could otherwise break its worker on purpose to be graded where it can reach the verdict.
     * Its isolated verdict stands (a test that did not run is missing, so failed).
     */
    public boolean fallsBack(String nodeId) { return fallBackReason(nodeId) != null; }

    /** Why the record sends {@code nodeId} to in-process grading (its module's, its conftest's or its own reasons); null: it does not. */
    public String fallBackReason(String nodeId) {
        String file = nodeId.contains("::") ? nodeId.substring(0, nodeId.indexOf("::")) : nodeId;
        if (modules.containsKey(file)) return modules.get(file);
        // a trusted conftest that could not load in the grading process (oracle_plugin._conftest_needs): its folder's tests
        for (String m : modules.keySet()) {
            if ((m.equals(CONFTEST) || m.endsWith("/" + CONFTEST)) && nodeId.contains("::")
                    && file.startsWith(m.substring(0, m.length() - CONFTEST.length()))) return m + ": " + modules.get(m);
        }
        // unittest (oracle_unittest): a module is recorded by its dotted name, its tests' ids start with it
        for (int dot = nodeId.lastIndexOf('.'); !nodeId.contains("::") && dot > 0; dot = nodeId.lastIndexOf('.', dot - 1)) {
            if (modules.containsKey(nodeId.substring(0, dot))) return modules.get(nodeId.substring(0, dot));
        }
        Test t = tests.get(nodeId);
        return t == null || t.isolated() ? null : String.join("; ", t.reasons());
    }

    /** A module of the record named so is a conftest: every test in its folder and below is graded in-process. */
    static final String CONFTEST = "conftest.py";

    /** The reason's first word for a test stopped at its round-trip budget ({@link OracleConfig#ROUND_TRIP_BUDGET}, oracle_conn). */
    public static final String BUDGET_REASON = "round-trip-budget";

    /** Tests graded in-process because they ran past their round-trip budget, in the record's order. */
    public List<String> overBudget() {
        List<String> out = new ArrayList<>();
        tests.forEach((id, t) -> { if (!t.isolated() && t.reasons().stream().anyMatch(r -> r.startsWith(BUDGET_REASON))) out.add(id); });
        return out;
    }

    /** Test ids and test files whose verdict must come from in-process grading. */
    public List<String> needsInProcess() {
        List<String> out = new ArrayList<>(modules.keySet());
        tests.forEach((id, t) -> { if (!t.isolated()) out.add(id); });
        return out;
    }

    private static List<String> texts(JsonNode a) {
        List<String> out = new ArrayList<>();
        a.forEach(x -> out.add(x.asText()));
        return out;
    }

    private static List<String> rules(JsonNode a) {
        List<String> out = new ArrayList<>();
        a.forEach(x -> out.add(x.path("rule").asText() + ": " + x.path("detail").asText()));
        return out;
    }
}
