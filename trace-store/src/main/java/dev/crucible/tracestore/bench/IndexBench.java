package dev.crucible.tracestore.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.crucible.tracestore.index.RolloutFilter;
import dev.crucible.tracestore.index.RolloutIndex;
import dev.crucible.tracestore.index.RolloutRow;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.IntFunction;

/**
 * The index's filter latency over N rollouts (default 10,000): a synthetic population (50 environments, 20
 * namespaces, 5 phases, rewards, 0–2 of 8 detectors, team/model labels over 30 days) in a real H2 index on disk,
 * then each filter 200 times (other values each round) after 50 warm-ups: p50 and p99 in ms. Peer, same run: the same filters as a scan of
 * the same rows held in memory (what a store without an index would do, and a lower bound for a small population).
 * {@code java -cp … dev.crucible.tracestore.bench.IndexBench [N] [DIR]}
 */
public final class IndexBench {
    static final List<String> PHASES = Arrays.asList("Succeeded", "Failed", "Hacked", "TimedOut", null);
    static final List<String> DETECTORS = List.of("test-skip-injection", "conftest-write", "grader-tamper", "network-egress",
            "pytest-plugin", "sitecustomize", "exit-code-forgery", "timing-oracle");
    static final Instant BASE = Instant.parse("2026-11-01T00:00:00Z");
    private static final ObjectMapper JSON = new ObjectMapper();

    private IndexBench() {}

    /** Fills {@code index} with {@code n} rollouts; returns them as rows (for the peer and for tests), newest first. */
    public static List<RolloutRow> populate(RolloutIndex index, int n, long seed) throws Exception {
        Random rnd = new Random(seed);
        List<RolloutRow> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String ns = String.format("ns-%02d", rnd.nextInt(20));
            String name = "r-" + i;
            String env = String.format("env-%02d", rnd.nextInt(50));
            Instant created = BASE.plus(Duration.ofSeconds(rnd.nextInt(30 * 86_400)));
            Map<String, String> labels = new LinkedHashMap<>();
            labels.put("model", "m" + rnd.nextInt(5));
            labels.put("team", "t" + rnd.nextInt(10));
            String phase = PHASES.get(rnd.nextInt(PHASES.size()));
            Double reward = phase == null ? null : Math.round(rnd.nextDouble() * 100) / 100.0;
            List<String> dets = new ArrayList<>();
            int k = "Hacked".equals(phase) ? 1 + rnd.nextInt(2) : rnd.nextInt(4) == 0 ? 1 : 0;
            while (dets.size() < k) {
                String d = DETECTORS.get(rnd.nextInt(DETECTORS.size()));
                if (!dets.contains(d)) dets.add(d);
            }
            index.register(ns, name, "uid-" + i, env, labels, created);
            List<JsonNode> events = new ArrayList<>();
            for (String d : dets) events.add(event("finding", Map.of("detector", d)));
            if (phase != null) {
                Map<String, Object> o = new LinkedHashMap<>();
                o.put("phase", phase);
                o.put("reward", reward);
                events.add(event("outcome", o));
            }
            index.applied(ns, name, 1000, events, created);
            dets.sort(null);
            rows.add(new RolloutRow(ns, name, "uid-" + i, env, phase, reward, dets, labels, created.toString(), created.toString(),
                    1000, events.size(), phase != null));
        }
        rows.sort(Comparator.comparing((RolloutRow r) -> Instant.parse(r.created())).reversed()
                .thenComparing(Comparator.comparingInt((RolloutRow r) -> Integer.parseInt(r.name().substring(2))).reversed()));
        return rows;
    }

    private static JsonNode event(String kind, Map<String, Object> data) {
        ObjectNode e = JSON.createObjectNode();
        e.put("seq", 1);
        e.put("kind", kind);
        e.set("data", JSON.valueToTree(data));
        return e;
    }

    /** The peer: the filter as a scan of rows held in memory, newest first (the index's order). */
    public static List<RolloutRow> scan(List<RolloutRow> newestFirst, RolloutFilter f) {
        List<RolloutRow> out = new ArrayList<>();
        for (RolloutRow r : newestFirst) {
            if (f.namespaces() != null && !f.namespaces().contains(r.namespace())) continue;
            if (f.name() != null && !f.name().equals(r.name())) continue;
            if (f.environment() != null && !f.environment().equals(r.environment())) continue;
            if (f.phase() != null && !f.phase().equals(r.phase())) continue;
            if (f.detector() != null && !r.detectors().contains(f.detector())) continue;
            if (f.minReward() != null && (r.reward() == null || r.reward() < f.minReward())) continue;
            if (f.maxReward() != null && (r.reward() == null || r.reward() > f.maxReward())) continue;
            Instant c = Instant.parse(r.created());
            if (f.since() != null && c.isBefore(f.since())) continue;
            if (f.until() != null && !c.isBefore(f.until())) continue;
            if (!f.labels().entrySet().stream().allMatch(l -> l.getValue().equals(r.labels().get(l.getKey())))) continue;
            out.add(r);
            if (out.size() == f.limit()) break;
        }
        return out;
    }

    /**
     * The filters the benchmark times: what the console asks (by environment, phase, detector, label, reward, time).
     * Each round {@code i} asks for other values, so no cache of a previous answer can serve it.
     */
    public static Map<String, IntFunction<RolloutFilter>> filters() {
        Map<String, IntFunction<RolloutFilter>> f = new LinkedHashMap<>();
        f.put("newest", i -> filter(null, null, null, null, Map.of(), null, BASE.plusSeconds(i)));
        f.put("environment", i -> filter(null, env(i), null, null, Map.of(), null, null));
        f.put("environment+phase", i -> filter(null, env(i), "Hacked", null, Map.of(), null, null));
        f.put("detector", i -> filter(null, null, null, DETECTORS.get(i % DETECTORS.size()), Map.of(), null, null));
        f.put("label+phase", i -> filter(null, null, "Succeeded", null, Map.of("model", "m" + i % 5), null, null));
        f.put("reward+since", i -> filter(null, null, null, null, Map.of(), 0.9, BASE.plus(Duration.ofDays(23)).plusSeconds(i)));
        f.put("3-namespaces+detector", i -> filter(Set.of(ns(i), ns(i + 1), ns(i + 2)), null, null, DETECTORS.get(i % DETECTORS.size()),
                Map.of(), null, null));
        f.put("rare-combination", i -> filter(null, env(i), "Hacked", "sitecustomize", Map.of("team", "t" + i % 10), null, null));
        return f;
    }

    private static String env(int i) {
        return String.format("env-%02d", i % 50);
    }

    private static String ns(int i) {
        return String.format("ns-%02d", i % 20);
    }

    static RolloutFilter filter(Set<String> ns, String env, String phase, String det, Map<String, String> labels, Double minReward, Instant since) {
        return new RolloutFilter(ns, null, env, phase, det, labels, minReward, null, since, null, 100);
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        Path dir = args.length > 1 ? Files.createDirectories(Path.of(args[1])) : Files.createTempDirectory("index-bench-");
        long t0 = System.nanoTime();
        try (RolloutIndex index = new RolloutIndex(dir)) {
            List<RolloutRow> rows = populate(index, n, 7);
            System.out.printf("rollouts=%d populate_s=%.1f%n", n, (System.nanoTime() - t0) / 1e9);
            double worstP99 = 0;
            double sumIndex = 0;
            double sumScan = 0;
            double cpuIndex = 0;
            double cpuScan = 0;
            for (var e : filters().entrySet()) {
                IntFunction<RolloutFilter> f = e.getValue();
                long matched = 0;
                for (int i = 0; i < 50; i++) {
                    int got = index.query(f.apply(i)).size();
                    if (got != scan(rows, f.apply(i)).size()) throw new IllegalStateException("index and scan disagree on " + e.getKey());
                    matched += got;
                }
                double[] ix = time(i -> index.query(f.apply(i)));
                double[] sc = time(i -> scan(rows, f.apply(i)));
                worstP99 = Math.max(worstP99, ix[1]);
                sumIndex += ix[0];
                sumScan += sc[0];
                cpuIndex += ix[2];
                cpuScan += sc[2];
                System.out.printf("filter=%s mean_matched=%.1f index_p50_ms=%.3f index_p99_ms=%.3f index_cpu_p50_ms=%.3f"
                        + " scan_p50_ms=%.3f scan_cpu_p50_ms=%.3f%n", e.getKey(), matched / 50.0, ix[0], ix[1], ix[2], sc[0], sc[2]);
            }
            System.out.printf("index_worst_p99_ms=%.3f index_p50_sum_ms=%.3f peer_scan_p50_sum_ms=%.3f index_vs_scan=%.2f"
                    + " index_cpu_p50_sum_ms=%.3f peer_scan_cpu_p50_sum_ms=%.3f%n",
                    worstP99, sumIndex, sumScan, sumIndex / sumScan, cpuIndex, cpuScan);
        } finally {
            if (args.length < 2) {
                try (var w = Files.walk(dir)) {
                    w.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        }
    }

    private interface Query { Object run(int round) throws Exception; }

    private static final java.lang.management.ThreadMXBean CPU = java.lang.management.ManagementFactory.getThreadMXBean();

    /** {p50 wall, p99 wall, p50 CPU} in ms: on a shared machine the CPU time is what the query itself costs. */
    private static double[] time(Query q) throws Exception {
        for (int i = 0; i < 50; i++) q.run(1000 + i);
        double[] ms = new double[200];
        double[] cpu = new double[ms.length];
        for (int i = 0; i < ms.length; i++) {
            long c = CPU.getCurrentThreadCpuTime();
            long t = System.nanoTime();
            q.run(i);
            ms[i] = (System.nanoTime() - t) / 1e6;
            cpu[i] = (CPU.getCurrentThreadCpuTime() - c) / 1e6;
        }
        Arrays.sort(ms);
        Arrays.sort(cpu);
        return new double[] {ms[ms.length / 2], ms[(int) (ms.length * 0.99)], cpu[cpu.length / 2]};
    }
}
