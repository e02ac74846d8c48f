package dev.crucible.verifier.monitor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.crucible.contract.DetectorNames;
import java.io.IOException;
import java.util.function.Consumer;

/**
 * Compares a config file's test-runner sections (as the syntax helper returns them: JSON, keys sorted). A change
 * confined to {@code markers} (registering a marker for the agent's own tests, so pytest stops warning about it)
 * decides no verdict: grading takes the pristine file anyway, and a registered marker neither selects, skips nor
 * passes a test. It is recorded as info; any other difference is for the caller to report.
 */
final class RunnerSections {
    private static final ObjectMapper JSON = new ObjectMapper();

    private RunnerSections() {}

    /** True when {@code before} and {@code now} agree, or differ only in markers (then an info finding is sent). */
    static boolean judged(String rel, String before, String now, Consumer<WorkspaceScanner.Raw> out) {
        if (before.equals(now)) return true;
        if (now == null) return false;
        try {
            JsonNode a = JSON.readTree(before);
            JsonNode b = JSON.readTree(now);
            if (!dropMarkers(a, 0).equals(dropMarkers(b, 0))) return false;
        } catch (IOException | RuntimeException e) {
            return false;
        }
        out.accept(new WorkspaceScanner.Raw(DetectorNames.PROTECTED_PATH, "info", rel,
                "only the test-runner markers changed (decides no verdict; grading uses the pristine file)", "test-runner-markers"));
        return true;
    }

    private static JsonNode dropMarkers(JsonNode n, int depth) {
        if (!(n instanceof ObjectNode o) || depth > 4) return n;
        o.remove("markers");
        o.fields().forEachRemaining(e -> dropMarkers(e.getValue(), depth + 1));
        return o;
    }
}
