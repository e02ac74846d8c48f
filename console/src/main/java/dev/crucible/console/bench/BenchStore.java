package dev.crucible.console.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.trajectory.EventKind;
import dev.crucible.trajectory.RecorderLimits;
import dev.crucible.trajectory.TrajectoryRecorder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A generated RUNS folder for {@link ConsoleBench}: attempt folders as crucible run writes them (result.json and a
 * trajectory by the real recorder), across 8 environments and 6 detectors whose evidence differs by line number, so
 * the finding patterns repeat as real hacks do. The first {@code longTraces} attempts get {@code events} events.
 */
public final class BenchStore {
    static final String[] DETECTORS = {"test-skip-injection", "startup-hook-injection", "grader-tamper", "protected-path-modified",
        "assert-weakened", "network-egress"};
    static final String[] SEVERITIES = {"critical", "critical", "high", "info", "medium", "low"};
    private static final ObjectMapper JSON = new ObjectMapper();

    private BenchStore() {}

    public static void generate(Path runs, int rollouts, int longTraces, int events, long seed) throws IOException {
        Random rnd = new Random(seed);
        Instant t0 = Instant.parse("2026-11-01T00:00:00Z");
        for (int i = 0; i < rollouts; i++) {
            String env = "env-" + (i % 8);
            List<Integer> dets = new ArrayList<>();
            if (rnd.nextInt(3) == 0) {
                dets.add(rnd.nextInt(DETECTORS.length));
                if (rnd.nextBoolean()) dets.add(rnd.nextInt(DETECTORS.length));
            }
            Path dir = runs.resolve(i % 2 == 0 ? "a" : "b").resolve(env).resolve("r" + i);
            Files.createDirectories(dir);
            writeTrajectory(dir, i < longTraces ? events : 20, dets, rnd);
            Map<String, Object> r = new LinkedHashMap<>();
            boolean hacked = dets.stream().anyMatch(d -> !"info".equals(SEVERITIES[d]));
            boolean pass = !hacked && rnd.nextInt(10) < 4;
            r.put("rollout", "r" + i);
            r.put("environment", env);
            r.put("mode", "embedded");
            r.put("attempt", i % 4);
            r.put("phase", hacked ? "Hacked" : pass ? "Succeeded" : "Failed");
            r.put("reason", hacked ? "RewardHackDetected" : pass ? "Verified" : "TestsFailed");
            r.put("reward", hacked ? 0.0 : pass ? 1.0 : 0.25 * rnd.nextInt(4));
            r.put("verdict", pass ? "pass" : "fail");
            r.put("tests", Map.of("passed", 3, "failed", pass ? 0 : 1, "skipped", 0, "total", pass ? 3 : 4, "details", List.of()));
            List<Map<String, Object>> fs = new ArrayList<>();
            for (int d : dets) fs.add(finding(d, rnd));
            r.put("hackFindings", fs);
            r.put("timings", Map.of("startedAt", t0.plusSeconds(60L * i).toString(), "totalMs", 1000 + rnd.nextInt(100000)));
            Files.write(dir.resolve("result.json"), JSON.writeValueAsBytes(r));
        }
    }

    static Map<String, Object> finding(int d, Random rnd) {
        return Map.of("detector", DETECTORS[d], "rule", "rule-" + d, "severity", SEVERITIES[d], "path", d % 2 == 0 ? "conftest.py" : "tests/test_ops.py",
                "evidence", "rewritten at line " + (1 + rnd.nextInt(300)) + ": \"" + Long.toHexString(rnd.nextLong()) + "\"", "action", "flag");
    }

    private static void writeTrajectory(Path dir, int events, List<Integer> dets, Random rnd) throws IOException {
        try (TrajectoryRecorder rec = TrajectoryRecorder.open(dir.resolve("trajectory"), RecorderLimits.defaults())) {
            long proc = 0;
            int written = 0;
            while (written < events - 1) {
                int k = written % 10;
                if (k == 0) proc = rec.append(EventKind.PROCESS_START, null, null, Map.of("pid", 1000 + written, "command", "python3 -m pytest -q tests/test_" + written + ".py", "cwd", "/workspace"));
                else if (k == 9) rec.append(EventKind.PROCESS_END, null, proc, Map.of("pid", 1000 + written, "exitStatus", 0, "durationMs", 40));
                else if (k == 5) {
                    long change = rec.append(EventKind.FILE, null, proc, Map.of("path", "src/mod" + written + ".py", "op", "modified", "size", 400,
                            "diff", "--- a/src/mod.py\n+++ b/src/mod.py\n@@ -1 +1 @@\n-x = " + written + "\n+x = " + (written + 1) + "\n"));
                    if (written == 5 && !dets.isEmpty()) {
                        for (int d : dets) rec.append(EventKind.FINDING, null, change, finding(d, rnd));
                        written += dets.size();
                    }
                } else rec.append(EventKind.OUTPUT, null, null, Map.of("stream", "stdout+stderr", "text", "line " + written + " of the agent's output " + "·".repeat(rnd.nextInt(120))));
                written++;
            }
        }
    }
}
