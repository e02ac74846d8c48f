package dev.crucible.trajectory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The exported document against Harbor's published Pydantic models: the PyPI package {@code atif} 1.8.0, installed
 * by pip (with this machine's pip configuration) into target/atif-venv. Skipped only when there is no python3 with
 * venv and pip, or when pip says no package index it can reach has the package; any other failed install fails the test.
 */
class AtifSchemaTest {
    private static final String ATIF = "atif==1.8.0";
    private static Path python;

    @BeforeAll
    static void venv() throws Exception {
        assumeTrue(run(null, "python3", "-c", "import venv, ensurepip") == 0, "python3 with venv and pip is missing: the ATIF models cannot be installed");
        Path venv = Path.of("target/atif-venv").toAbsolutePath();
        python = venv.resolve("bin/python");
        if (Files.isExecutable(python) && run(null, python.toString(), "-c", "import atif") == 0) return;
        assertThat(run(null, "python3", "-m", "venv", venv.toString())).as("python3 -m venv").isZero();
        Path log = Path.of("target/atif-pip.log").toAbsolutePath();
        int rc = run(log, python.toString(), "-m", "pip", "install", "-q", ATIF);
        String said = Files.readString(log);
        System.out.print(said);
        // a machine whose package index cannot be reached (or has no atif 1.8.0) lacks what the test needs: skip, saying
        // so; any other failed install is a failure
        assumeTrue(rc == 0 || !UNREACHABLE.matcher(said).find(), "no package index with " + ATIF + " is reachable with this machine's pip configuration: "
                + said.strip().lines().reduce((a, b) -> b).orElse(""));
        assertThat(rc).as("pip install " + ATIF + ": " + said).isZero();
    }

    private static final java.util.regex.Pattern UNREACHABLE = java.util.regex.Pattern.compile("No matching distribution found|Could not find a version"
            + "|Failed to establish a new connection|Temporary failure in name resolution|Name or service not known|ProxyError|NewConnectionError"
            + "|Network is unreachable|Connection refused|Read timed out");

    @Test
    void crucibleExportValidatesAgainstTheAtifModels(@TempDir Path dir) throws Exception {
        try (TrajectoryRecorder r = TrajectoryRecorder.open(dir, RecorderLimits.defaults())) {
            long proc = r.append(EventKind.PROCESS_START, null, null, Map.of("pid", 42, "command", "sh agents/hacker.sh", "cwd", "/ws"));
            r.append(EventKind.OUTPUT, null, null, Map.of("stream", "stdout", "text", "writing conftest.py\n"));
            Map<String, Object> file = new LinkedHashMap<>(Map.of("path", "conftest.py", "op", "added", "size", 12, "process", proc));
            file.put("diff", "--- /dev/null\n+++ b/conftest.py\n@@ -0,0 +1 @@\n+import pytest\n");
            long f = r.append(EventKind.FILE, null, proc, file);
            r.append(EventKind.FINDING, null, f, Map.of("detector", "startup_hook", "severity", "critical", "path", "conftest.py", "evidence", "added"));
            r.append(EventKind.PROCESS_END, null, proc, Map.of("pid", 42, "exitStatus", 0, "durationMs", 12));
            r.append(EventKind.STEP, 1, null, Map.of("tool", "bash", "args", Map.of("command", "ls"), "output", "a\nb\n", "exitCode", 0, "durationMs", 3));
            r.append(EventKind.STEP, 2, null, Map.of("tool", "bash", "args", Map.of("command", "yes | head -c 100000"), "output", "y\n".repeat(50_000),
                    "exitCode", 0, "durationMs", 9));
            r.append(EventKind.GRADING, null, null, Map.of("command", "pytest", "exitCode", 0, "tests", List.of(Map.of("name", "t1", "outcome", "passed"))));
            r.append(EventKind.OUTCOME, null, null, Map.of("phase", "Hacked", "reason", "RewardHackDetected", "reward", 0.0));
            Path handed = dir.resolve("handed.json");
            Files.writeString(handed, "{\"schema_version\":\"ATIF-v1.8\",\"agent\":{\"name\":\"my-framework\",\"version\":\"2\"},\"steps\":["
                    + "{\"step_id\":1,\"source\":\"user\",\"message\":\"fix divide\"},"
                    + "{\"step_id\":2,\"source\":\"agent\",\"message\":\"" + "long thought ".repeat(1000) + "\",\"reasoning_content\":\"r\","
                    + "\"tool_calls\":[{\"tool_call_id\":\"c1\",\"function_name\":\"bash\",\"arguments\":{\"command\":\"ls\"}}],"
                    + "\"observation\":{\"results\":[{\"source_call_id\":\"c1\",\"content\":\"a\"}]},"
                    + "\"metrics\":{\"prompt_tokens\":10,\"completion_tokens\":5},\"extra\":{\"mine\":1}}]}");
            assertThat(HandedInTrajectory.merge(handed, r)).isEqualTo(2);
        }
        AtifExport.write(dir, "demo-hacker-1", new AtifExport.AgentInfo("sh agents/hacker.sh", "unknown", Map.of("mode", "embedded")));
        Path doc = dir.resolve(AtifExport.FILE);
        String out = validate(doc);
        assertThat(out).as(out).startsWith("ok 12");
        JsonNode root = new ObjectMapper().readTree(doc.toFile());
        JsonNode finding = root.get("steps").get(3);
        assertThat(finding.at("/extra/crucible/kind").asText()).isEqualTo("finding");
        assertThat(finding.at("/extra/crucible/causeStep").asLong()).isEqualTo(3);
        assertThat(root.get("steps").get(2).at("/extra/crucible/data/path").asText()).isEqualTo("conftest.py");
        JsonNode handedIn = root.get("steps").get(10);
        assertThat(handedIn.get("message").asText()).hasSize("long thought ".length() * 1000); // read back whole from its blob
        assertThat(handedIn.at("/tool_calls/0/function_name").asText()).isEqualTo("bash");
        assertThat(handedIn.at("/extra/mine").asInt()).isEqualTo(1);
        assertThat(handedIn.at("/extra/crucible/agent").asText()).isEqualTo("my-framework");
    }

    /** Host round 6, P1: an agent's file name with an 8-bit CSI and a bidi override reached the terminal raw through --atif. */
    @Test
    void theExportIsAsciiWhateverTheAgentNamed(@TempDir Path dir) throws Exception {
        String name = "esc/\u009b31mc1.py bidi\u202eyp.txt caf\u00e9";
        try (TrajectoryRecorder r = TrajectoryRecorder.open(dir, RecorderLimits.defaults())) {
            r.append(EventKind.FILE, null, null, Map.of("path", name, "op", "added", "size", 1));
        }
        var out = new java.io.ByteArrayOutputStream();
        AtifExport.export(dir, "s", new AtifExport.AgentInfo("a", "unknown", Map.of()), out);
        byte[] bytes = out.toByteArray();
        for (byte b : bytes) assertThat(b & 0xff).as("a byte past ASCII").isLessThan(0x80);
        assertThat(new ObjectMapper().readTree(bytes).toString()).contains(name);
    }

    /**
     * Host round 6, P2: after an exec storm the stored document was 2.8 times the segments it came from, on the host's disk
     * outside the attempt's limit and past the trajectory's cap. Now the segments, blobs and stored document together stay
     * within the cap (at least 1 MiB for the document); past it the steps stop, it says so, and it still validates. Under
     * the default cap the same storm's document is whole; on demand it always is.
     */
    @Test
    void theStoredDocumentKeepsTheFolderWithinItsCapAndSaysWhenItStopped(@TempDir Path dir) throws Exception {
        try (TrajectoryRecorder r = TrajectoryRecorder.open(dir, RecorderLimits.defaults())) {
            for (int i = 0; i < 30_000; i++) {
                r.append(EventKind.PROCESS_START, null, null, Map.of("pid", 1000 + i, "command", List.of("sh", "-c", "true " + i), "cwd", "/w"));
            }
        }
        long segments = AtifExport.storedBytes(dir);
        long cap = segments + (2L << 20); // a cap the storm nearly filled: 2 MiB left for the document
        AtifExport.write(dir, "storm", new AtifExport.AgentInfo("a", "unknown", Map.of()), cap);
        Path doc = dir.resolve(AtifExport.FILE);
        assertThat(segments + Files.size(doc)).as("the folder: %d bytes of segments and the document", segments).isLessThanOrEqualTo(cap + (64 << 10));
        JsonNode root = new ObjectMapper().readTree(doc.toFile());
        long written = root.get("steps").size();
        assertThat(written).isLessThan(30_000).isEqualTo(root.at("/final_metrics/total_steps").asLong());
        assertThat(root.at("/extra/crucible/truncated/events").asLong()).as("30,000 and the recorder's end summary").isEqualTo(30_001);
        assertThat(root.at("/extra/crucible/status/complete").isBoolean()).as("the end summary is read past the budget").isTrue();
        assertThat(root.at("/extra/crucible/truncated/why").asText()).contains("crucible trace --atif");
        assertThat(validate(doc)).startsWith("ok " + written);
        long truncated = Files.size(doc);

        AtifExport.write(dir, "storm", new AtifExport.AgentInfo("a", "unknown", Map.of()));
        JsonNode whole = new ObjectMapper().readTree(doc.toFile());
        assertThat(whole.get("steps").size()).as("under the default cap: whole").isEqualTo(30_001);
        assertThat(whole.at("/extra/crucible/truncated").isMissingNode()).isTrue();
        var all = new java.io.ByteArrayOutputStream();
        AtifExport.export(dir, "storm", new AtifExport.AgentInfo("a", "unknown", Map.of()), all);
        assertThat(new ObjectMapper().readTree(all.toByteArray()).get("steps").size()).as("on demand: the whole").isEqualTo(30_001);
        System.out.printf("[atif-stored] segments and blobs %d B; stored under a cap 2 MiB above them %d B (%d of 30,001 steps); stored"
                + " whole (compact) %d B (%.2fx); on demand (indented) %d B (%.2fx)%n", segments, truncated, written, Files.size(doc),
                Files.size(doc) / (double) segments, all.size(), all.size() / (double) segments);
    }

    @Test
    void theValidatorRejectsADocumentThatBreaksTheModels(@TempDir Path dir) throws Exception {
        Path bad = dir.resolve("bad.json");
        Files.writeString(bad, "{\"schema_version\":\"ATIF-v1.8\",\"agent\":{\"name\":\"a\",\"version\":\"1\"},"
                + "\"steps\":[{\"step_id\":2,\"source\":\"system\",\"message\":\"x\",\"surprise\":1}]}");
        assertThat(validate(bad)).doesNotStartWith("ok").contains("surprise", "Extra inputs are not permitted");
    }

    private static String validate(Path doc) throws Exception {
        Path out = doc.resolveSibling(doc.getFileName() + ".out");
        run(out, python.toString(), "-c", "import sys, atif\ntry:\n t = atif.Trajectory.model_validate_json(open(sys.argv[1]).read())\n"
                + " print('ok', len(t.steps))\nexcept Exception as e:\n print('invalid', e)", doc.toString());
        return Files.readString(out);
    }

    private static int run(Path out, String... cmd) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        if (out != null) pb.redirectOutput(out.toFile());
        Process p = pb.start();
        if (out == null) p.getInputStream().transferTo(System.out);
        return p.waitFor(300, TimeUnit.SECONDS) ? p.exitValue() : -1;
    }
}
