package dev.crucible.console.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.console.http.ConsoleServer;
import dev.crucible.console.store.RunStore;
import dev.crucible.trajectory.TraceFilter;
import dev.crucible.trajectory.TraceText;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

/**
 * The console's latencies over a generated store, as the pages see them (real HTTP, one client):
 * {@code list_p95_ms} (a page of the rollouts view: /api/rollouts + /api/groups), {@code filter_p95_ms} (the same with
 * random environment/detector/severity/reward filters), {@code open_trace_first_paint_ms} (p95 of what the trace
 * view waits for before its first paint on a long trace: /api/rollout, the first 200 timeline rows, the first
 * event; and the process's CPU time for it, which other load does not stretch), {@code console_rss_mib} and the heap after GC with half and all of the store indexed. Peers in the same run:
 * reading and filtering every result.json with Jackson on each request (no index), and {@code crucible trace}'s
 * timeline text of the same long trace. Usage: {@code ConsoleBench [ROLLOUTS] [EVENTS] [DIR|-] [LONG|all]} (1,000 and 10,000;
 * LONG rollouts get EVENTS events, default 3, {@code all} every one).
 */
public final class ConsoleBench {
    static final HttpClient HTTP = HttpClient.newHttpClient();

    private ConsoleBench() {}

    public static void main(String[] args) throws Exception {
        int rollouts = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        int events = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
        boolean temp = args.length < 3 || args[2].equals("-");
        // the 4th argument: how many rollouts get EVENTS events ("all": every one, the 1,000 × 10,000), the rest 20
        int longTraces = args.length > 3 ? (args[3].equals("all") ? rollouts : Integer.parseInt(args[3])) : 3;
        // -Dcrucible.bench.searchHeap=false: no separate index builds of half and all of the store (each reads every event)
        boolean searchHeap = !"false".equals(System.getProperty("crucible.bench.searchHeap"));
        // -Dcrucible.bench.search=false: no search index at all (list, filter, trace and memory only; search_p95_ms=n/a)
        boolean search = !"false".equals(System.getProperty("crucible.bench.search"));
        searchHeap &= search;
        Path runs = temp ? Files.createTempDirectory("console-bench-") : Path.of(args[2]);
        try {
            long g0 = System.nanoTime();
            if (!Files.exists(runs.resolve("a"))) BenchStore.generate(runs, rollouts, longTraces, events, 42);
            System.out.printf("store: %d rollouts (%d with %d events, the rest 20) in %s, generated in %.1f s, %.1f MiB%n", rollouts, longTraces,
                    events, runs, (System.nanoTime() - g0) / 1e9, du(runs) / 1048576.0);
            double heapHalf = heapWith(runs.resolve("a"));
            double heapAll = heapWith(runs);
            double[] searchHalf = searchHeap ? heapWithSearch(runs.resolve("a")) : new double[] {Double.NaN, Double.NaN};
            double[] searchAll = searchHeap ? heapWithSearch(runs) : new double[] {Double.NaN, Double.NaN};
            // the search index is kept (as crucible console keeps it) so that a second start below can reuse it
            Path kept = Files.createTempDirectory("console-bench-index-");
            String probe = null;
            try (ConsoleServer s = ConsoleServer.start(runs, "127.0.0.1", 0, search, null, search ? kept : null)) {
                Random rnd = new Random(7);
                long i0 = System.nanoTime();
                while (search && (!s.search().progress().done() || s.search().progress().rollouts() == 0)) Thread.sleep(100); // steady state first
                double indexS = (System.nanoTime() - i0) / 1e9;
                int pages = (rollouts + 49) / 50;
                for (int i = 0; i < 30; i++) get(s, "api/rollouts?page=" + (1 + i % pages)); // warm-up (JIT, first scan)
                long listCpu0 = cpuNanos();
                double[] list = times(200, () -> {
                    String page = "page=" + (1 + rnd.nextInt(pages));
                    get(s, "api/rollouts?" + page);
                    get(s, "api/groups");
                });
                double listCpu = (cpuNanos() - listCpu0) / 1e6 / 200;
                long filterCpu0 = cpuNanos();
                double[] filter = times(200, () -> {
                    String q = filter(rnd);
                    get(s, "api/rollouts?" + q);
                    get(s, "api/groups?" + q);
                });
                double filterCpu = (cpuNanos() - filterCpu0) / 1e6 / 200;
                Path longest = runs.resolve("a/env-0/r0");
                String id = s.store().root().relativize(longest.toRealPath()).toString();
                // the first open of a trace never opened: its segments are digested (SegmentIndex), once
                long cold0 = System.nanoTime();
                get(s, "api/rollout?id=" + id);
                get(s, "api/trace?id=" + id + "&from=1&limit=200");
                get(s, "api/event?id=" + id + "&seq=1");
                double cold = (System.nanoTime() - cold0) / 1e6;
                long cpu0 = cpuNanos();
                double[] open = times(30, () -> {
                    get(s, "api/rollout?id=" + id);
                    get(s, "api/trace?id=" + id + "&from=1&limit=200");
                    get(s, "api/event?id=" + id + "&seq=1");
                });
                double openCpu = (cpuNanos() - cpu0) / 1e6 / 30;
                // a step and a page at the end of the trace: what a link to a late step opens
                long last = new ObjectMapper().readTree(get(s, "api/trace?id=" + id + "&from=1&limit=1")).path("lastSeq").asLong();
                double[] late = times(30, () -> {
                    get(s, "api/trace?id=" + id + "&from=" + Math.max(1, last - 100) + "&limit=200");
                    get(s, "api/event?id=" + id + "&seq=" + last);
                });
                // the peer: what each of those requests did before the index, one streaming pass over every segment
                double[] peerStream = times(10, () -> dev.crucible.trajectory.TrajectoryReader.read(longest.resolve("trajectory"), e -> { }, x -> { }));
                String[] words = {"pytest", "rewritten+at+line", "conftest.py&detector=test-skip-injection", "%22x+%3D+17%22",
                    "src%2Fmod55.py&kind=file", "agent%27s+output&environment=env-3", "critical&kind=finding", "test_4135"};
                if (search) for (String w : words) get(s, "api/search?q=" + w); // warm-up
                double[] searchMs = !search ? new double[] {Double.NaN} : times(200, () -> get(s, "api/search?q=" + words[rnd.nextInt(words.length)]
                        + (rnd.nextInt(4) == 0 ? "&page=2" : "")));
                double[] peerList = times(20, () -> peerScan(runs, rnd));
                // the grep peer reads every event of the store per request: once at the size (10 M events), 5 times below 1 M
                double[] peerGrep = !search ? new double[] {Double.NaN}
                        : times((long) longTraces * events > 1_000_000 ? 1 : 5, () -> peerGrep(runs, "rewritten at line"));
                double[] peerTrace = times(10, () -> peerTimeline(longest.resolve("trajectory")));
                System.out.printf("list_p95_ms=%.1f filter_p95_ms=%.1f search_p95_ms=%.1f open_trace_first_paint_ms=%.1f console_rss_mib=%.1f%n",
                        p95(list), p95(filter), p95(searchMs), p95(open), rssMib());
                System.out.printf("list_p50_ms=%.1f filter_p50_ms=%.1f open_trace_p50_ms=%.1f open_trace_cpu_ms_mean=%.1f heap_mib_half_store=%.1f heap_mib_whole_store=%.1f%n",
                        p50(list), p50(filter), p50(open), openCpu, heapHalf, heapAll);
                // CPU time of this process (server and client) per list/filter request pair: what load on the machine does not stretch
                System.out.printf("list_cpu_ms_mean=%.1f filter_cpu_ms_mean=%.1f%n", listCpu, filterCpu);
                System.out.printf("peer_scan_every_result_p95_ms=%.1f list_vs_peer=%.3f peer_trace_text_p95_ms=%.1f open_trace_vs_peer=%.3f%n",
                        p95(peerList), p95(list) / p95(peerList), p95(peerTrace), p95(open) / p95(peerTrace));
                System.out.printf("open_trace_cold_ms=%.1f open_late_step_p95_ms=%.1f open_late_step_p50_ms=%.1f peer_stream_every_segment_p95_ms=%.1f "
                        + "late_step_vs_peer=%.3f trace_events=%d%n", cold, p95(late), p50(late), p95(peerStream), p95(late) / (2 * p95(peerStream)), last);
                System.out.printf("search_p50_ms=%.1f index_build_s=%.1f index_disk_mib=%.1f heap_mib_search_half_store=%.1f heap_mib_search_whole_store=%.1f "
                        + "peer_grep_every_trajectory_p95_ms=%.1f search_vs_peer=%.4f%n", p50(searchMs), indexS, searchAll[1], searchHalf[0], searchAll[0],
                        p95(peerGrep), p95(searchMs) / p95(peerGrep));
                if (search) probe = get(s, "api/search?q=rewritten+at+line&size=1");
            }
            if (search) {
                // a restart over the same, unchanged store: the kept index is reused, nothing re-indexed
                long r0 = System.nanoTime();
                try (ConsoleServer s = ConsoleServer.start(runs, "127.0.0.1", 0, true, null, kept)) {
                    while (!s.search().progress().done() || s.search().progress().rollouts() == 0) Thread.sleep(20);
                    double restartS = (System.nanoTime() - r0) / 1e9;
                    String again = get(s, "api/search?q=rewritten+at+line&size=1");
                    long m0 = new ObjectMapper().readTree(probe).path("matches").asLong();
                    long m1 = new ObjectMapper().readTree(again).path("matches").asLong();
                    System.out.printf("index_restart_s=%.2f restart_matches=%d first_start_matches=%d%n", restartS, m1, m0);
                }
            }
            delete(kept);
        } finally {
            if (temp) delete(runs);
        }
    }

    static String filter(Random rnd) {
        List<String> q = new ArrayList<>();
        if (rnd.nextBoolean()) q.add("environment=env-" + rnd.nextInt(8));
        if (rnd.nextBoolean()) q.add("detector=" + BenchStore.DETECTORS[rnd.nextInt(BenchStore.DETECTORS.length)]);
        if (rnd.nextInt(3) == 0) q.add("severity=critical");
        if (rnd.nextInt(3) == 0) q.add("maxReward=0.5");
        if (q.isEmpty()) q.add("phase=Hacked");
        return String.join("&", q);
    }

    /** The peer: what each request would cost without the index, reading and filtering every result.json. */
    static void peerScan(Path runs, Random rnd) throws IOException {
        ObjectMapper json = new ObjectMapper();
        String detector = BenchStore.DETECTORS[rnd.nextInt(BenchStore.DETECTORS.length)];
        int[] hits = {0};
        try (Stream<Path> s = Files.walk(runs, 4)) {
            for (Path p : s.filter(p -> p.getFileName().toString().equals("result.json")).toList()) {
                var r = json.readTree(p.toFile());
                for (var f : r.path("hackFindings")) if (detector.equals(f.path("detector").asText())) hits[0]++;
            }
        }
    }

    /** The search peer: no index, every trajectory read and its events' text matched on each request. */
    static void peerGrep(Path runs, String words) throws IOException {
        int[] hits = {0};
        try (Stream<Path> s = Files.walk(runs, 4)) {
            for (Path t : s.filter(p -> p.getFileName().toString().equals("trajectory")).toList()) {
                dev.crucible.trajectory.TrajectoryReader.read(t, e -> {
                    if (dev.crucible.console.trace.SearchText.of(e, t).contains(words)) hits[0]++;
                }, p -> { });
            }
        }
    }

    /** Heap after GC with the search index of {@code dir} built (the index is on disk), and the index's size on disk. */
    static double[] heapWithSearch(Path dir) throws Exception {
        RunStore store = new RunStore(dir, Long.MAX_VALUE);
        Path idx = Files.createTempDirectory("console-bench-index-");
        try (dev.crucible.console.search.SearchIndex search = new dev.crucible.console.search.SearchIndex(store, idx, true)) {
            search.sync();
            System.gc();
            System.gc();
            Runtime rt = Runtime.getRuntime();
            double mib = (rt.totalMemory() - rt.freeMemory()) / 1048576.0;
            long bytes;
            try (Stream<Path> s = Files.walk(idx)) {
                bytes = s.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
            }
            return new double[] {mib, bytes / 1048576.0};
        }
    }

    static void peerTimeline(Path trajectory) throws IOException {
        StringBuilder b = new StringBuilder();
        TraceFilter.all().select(trajectory, e -> b.append(e.seq()).append(' ').append(TraceText.summary(e)).append('\n'), p -> { });
    }

    static double heapWith(Path dir) throws IOException {
        RunStore store = new RunStore(dir, Long.MAX_VALUE);
        store.index();
        System.gc();
        System.gc();
        Runtime rt = Runtime.getRuntime();
        double mib = (rt.totalMemory() - rt.freeMemory()) / 1048576.0;
        if (store.index().rollouts().isEmpty()) throw new IllegalStateException("no rollouts in " + dir);
        return mib;
    }

    interface Step {
        void run() throws Exception;
    }

    static double[] times(int n, Step step) throws Exception {
        double[] t = new double[n];
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            step.run();
            t[i] = (System.nanoTime() - t0) / 1e6;
        }
        Arrays.sort(t);
        return t;
    }

    static double p95(double[] sorted) { return sorted[(int) Math.ceil(sorted.length * 0.95) - 1]; }

    static double p50(double[] sorted) { return sorted[sorted.length / 2]; }

    static String get(ConsoleServer s, String pathAndQuery) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(s.url() + pathAndQuery)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) throw new IllegalStateException(pathAndQuery + " → " + r.statusCode() + " " + r.body());
        return r.body();
    }

    /** CPU time of this whole process (server and client): unlike wall time, not stretched by other load on the machine. */
    static long cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    static long du(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        }
    }

    static double rssMib() throws IOException {
        for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (l.startsWith("VmRSS:")) return Long.parseLong(l.replaceAll("\\D", "")) / 1024.0;
        }
        return -1;
    }

    static void delete(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
    }
}
