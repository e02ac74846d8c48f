package dev.crucible.trajectory;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The recorder's figures for a synthetic run (issue 36): {@code java -cp cli/target/crucible-cli.jar
 * dev.crucible.trajectory.TrajectoryBench [EVENTS] [DIR]} (default 1,000,000 events in a temporary folder, deleted after).
 * A mix like an embedded rollout's: output chunks (1 in 100 large enough for a blob), process starts and ends, file
 * changes with a diff, findings. Prints events_per_s, bytes_per_event, recorder_rss_mib (the process's resident set
 * after the run) with heap_mib at a tenth and at the end (flat: memory does not grow with the run), p99_append_ms;
 * then the peer measured in the same run, a plain Jackson-to-JSON-Lines writer, and the agent step latency (a real
 * {@code sh -c true} per step) with and without recording each step, as a ratio.
 */
public final class TrajectoryBench {
    private TrajectoryBench() {}

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        Path dir = args.length > 1 ? Path.of(args[1]) : Files.createTempDirectory("crucible-trajectory-bench-");
        try {
            run(n, dir);
        } finally {
            if (args.length <= 1) delete(dir);
        }
    }

    private static void run(int n, Path dir) throws Exception {
        String big = "y".repeat(10_000);
        long[] lat = new long[n];
        double heapTenth = 0;
        long t0 = System.nanoTime();
        TrajectoryStatus status;
        try (TrajectoryRecorder r = TrajectoryRecorder.open(dir.resolve("recorder"), RecorderLimits.defaults().withCap(64L << 30))) {
            for (int i = 0; i < n; i++) {
                Map<String, Object> d = event(i, big);
                long a = System.nanoTime();
                r.append(kind(i), null, i % 20 == 19 ? (long) i : null, d);
                lat[i] = System.nanoTime() - a;
                if (i == n / 10) heapTenth = heapMib();
            }
            status = r.status();
        }
        double secs = (System.nanoTime() - t0) / 1e9;
        Arrays.sort(lat);
        System.out.printf("events_per_s=%.0f bytes_per_event=%.1f recorder_rss_mib=%.1f p99_append_ms=%.4f%n", n / secs,
                (double) status.bytes() / n, rssMib(), lat[(int) (n * 0.99)] / 1e6);
        System.out.printf("heap_mib_at_10pct=%.1f heap_mib_at_end=%.1f complete=%s segments=%d%n", heapTenth, heapMib(), status.complete(),
                TrajectoryReader.segments(dir.resolve("recorder")).size());

        ObjectMapper json = new ObjectMapper();
        long p0 = System.nanoTime();
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(dir.resolve("peer.jsonl")), 64 << 10)) {
            for (int i = 0; i < n; i++) {
                out.write(json.writeValueAsBytes(new TraceEvent(i + 1, java.time.Instant.now().toString(), kind(i), null, null, event(i, big))));
                out.write('\n');
            }
        }
        double peerSecs = (System.nanoTime() - p0) / 1e9;
        System.out.printf("peer_plain_jsonl_events_per_s=%.0f recorder_vs_peer=%.2f%n", n / peerSecs, (n / secs) / (n / peerSecs));

        int steps = 600;
        try (TrajectoryRecorder r = TrajectoryRecorder.open(dir.resolve("steps"), RecorderLimits.defaults())) {
            step(null, 30); // warm-up of both paths (the first step events build Jackson's serializers)
            step(r, 30);
            double[] without = new double[10];
            double[] with = new double[10];
            for (int round = 0; round < 10; round++) { // interleaved rounds: drift on a shared machine hits both sides
                without[round] = step(null, steps / 10);
                with[round] = step(r, steps / 10);
            }
            Arrays.sort(without); // medians of the rounds: one round slowed by another session's burst does not decide it
            Arrays.sort(with);
            double wo = (without[4] + without[5]) / 2;
            double wi = (with[4] + with[5]) / 2;
            System.out.printf("step_ms_without=%.3f step_ms_with=%.3f step_ratio=%.3f%n", wo, wi, wi / wo);
        }
    }

    /** Mean latency (ms) of a step that runs a real process, recording it as a step event when {@code r} is given. */
    private static double step(TrajectoryRecorder r, int count) throws Exception {
        long t = System.nanoTime();
        for (int i = 0; i < count; i++) {
            long a = System.nanoTime();
            Process p = new ProcessBuilder("sh", "-c", "echo step " + i).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            int exit = p.waitFor();
            if (r != null) {
                Map<String, Object> d = new LinkedHashMap<>();
                d.put("tool", "bash");
                d.put("args", Map.of("command", "echo step " + i));
                d.put("output", out);
                d.put("exitCode", exit);
                d.put("durationMs", (System.nanoTime() - a) / 1_000_000);
                r.append(EventKind.STEP, i, null, d);
            }
        }
        return (System.nanoTime() - t) / 1e6 / count;
    }

    private static String kind(int i) {
        int k = i % 20;
        return k < 12 ? EventKind.OUTPUT : k < 14 ? EventKind.PROCESS_START : k < 16 ? EventKind.PROCESS_END : k < 19 ? EventKind.FILE : EventKind.FINDING;
    }

    private static Map<String, Object> event(int i, String big) {
        Map<String, Object> d = new LinkedHashMap<>();
        switch (kind(i)) {
            case EventKind.OUTPUT -> {
                d.put("stream", "stdout+stderr");
                d.put("text", i % 100 == 0 ? big + i : "collected 42 items; test_ops.py::test_divide PASSED [" + i + "]\n");
            }
            case EventKind.PROCESS_START -> {
                d.put("pid", 1000 + i);
                d.put("command", "python3 -m pytest -q tests/test_ops.py");
                d.put("cwd", "/workspace");
            }
            case EventKind.PROCESS_END -> {
                d.put("pid", 1000 + i);
                d.put("durationMs", 420);
            }
            case EventKind.FILE -> {
                d.put("path", "calc/ops.py");
                d.put("op", "modified");
                d.put("size", 199);
                d.put("sha256", "sha256:a16934727902c0ad8c1f1d3b1f0b8f0e2b8c3a9d4e5f60718293a4b5c6d7e8f9");
                d.put("diff", "--- a/calc/ops.py\n+++ b/calc/ops.py\n@@ -3,2 +3,4 @@\n def divide(a, b):\n-    return a // b\n+    if b == 0:\n+        raise ValueError\n+    return a / b\n");
            }
            default -> {
                d.put("detector", "startup-hook-injection");
                d.put("severity", "critical");
                d.put("path", "conftest.py");
                d.put("evidence", "added conftest.py runs at pytest start-up");
            }
        }
        return d;
    }

    private static double heapMib() {
        Runtime rt = Runtime.getRuntime();
        System.gc();
        return (rt.totalMemory() - rt.freeMemory()) / 1048576.0;
    }

    private static double rssMib() throws Exception {
        for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (l.startsWith("VmRSS:")) return Long.parseLong(l.replaceAll("\\D", "")) / 1024.0;
        }
        return -1;
    }

    private static void delete(Path dir) throws Exception {
        try (var s = Files.walk(dir)) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
