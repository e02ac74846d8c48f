package dev.crucible.tracestore;

import static dev.crucible.tracestore.StoreHttp.rollout;
import static dev.crucible.tracestore.TwoTeamsCluster.A;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.crucible.console.cluster.ClusterConsoleServer;
import dev.crucible.console.cluster.ClusterMirror;
import dev.crucible.console.cluster.ClusterSource;
import dev.crucible.console.http.ClusterPages;
import dev.crucible.console.http.ConsoleServer;
import dev.crucible.tracestore.auth.KubeAuth;
import dev.crucible.tracestore.common.StoreSettings;
import dev.crucible.tracestore.http.TraceStoreServer;
import dev.crucible.tracestore.store.TraceService;
import dev.crucible.trajectory.EventKind;
import dev.crucible.trajectory.RecorderLimits;
import dev.crucible.trajectory.TrajectoryRecorder;
import io.fabric8.kubernetes.client.Config;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A benchmark of the console over the cluster source (issue 37), printed, not asserted on time: N Rollouts of team A
 * (-Dcrucible.bench.rollouts, default 200) with stored trajectories, one of 10,000 events, asked through the cluster
 * console with alice's token as the pages ask (a page of the list with its groups, a detector filter, and a trace's
 * first paint: the rollout, its first 200 rows, one event). Peer in the same run: the local console over the same
 * rollouts as folders. The ratio is the cost of asking the API server and the store, and mirroring, per request.
 * Skipped unless -Dcrucible.bench=true (it adds N Rollouts to the module's shared cluster and takes about a minute).
 */
class ConsoleClusterBenchOnApiServerTest {
    static final int ROLLOUTS = Integer.getInteger("crucible.bench.rollouts", 200);
    static final int LONG_EVENTS = 10_000;

    @Test
    @Timeout(600)
    void listFilterAndFirstPaintOverTheClusterAgainstTheLocalConsole(@TempDir Path tmp) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(Boolean.getBoolean("crucible.bench"),
                "a benchmark (about a minute): run with -Dcrucible.bench=true");
        TwoTeamsCluster k8s = TwoTeamsCluster.shared();
        StoreSettings s = StoreSettings.defaults(tmp.resolve("store")).withPort(0);
        try (var storeClient = k8s.storeClient();
             TraceService service = new TraceService(s, storeClient, Clock.systemUTC());
             TraceStoreServer store = TraceStoreServer.start(s, service, new KubeAuth(storeClient, Duration.ofSeconds(1),
                     s.writerServiceAccount(), s.writerAudience()))) {
            StoreHttp storeHttp = new StoreHttp(store.port());
            String writer = k8s.writer(A);
            for (int i = 0; i < ROLLOUTS; i++) {
                String name = "bench-" + i;
                k8s.rollout(A, name, "bench-env-" + (i % 4), Map.of());
                ship(storeHttp, writer, name, record(tmp, name, i == 0 ? LONG_EVENTS : 8, i % 3 == 0));
            }
            Config cfg = Config.fromKubeconfig(k8s.cluster.readKubeconfig());
            byte[] ca = cfg.getCaCertData() != null ? Base64.getDecoder().decode(cfg.getCaCertData())
                    : Files.readAllBytes(Path.of(cfg.getCaCertFile()));
            ClusterSource source = new ClusterSource(URI.create(cfg.getMasterUrl().replaceAll("/$", "")), ca, URI.create("http://127.0.0.1:" + store.port()));
            String alice = k8s.token(A, "alice", null);
            // the peer's folder: the same rollouts as the cluster console sees them, kept, with the long trajectory whole
            Path runs = tmp.resolve("runs");
            for (int i = 0; i < ROLLOUTS; i++) {
                try (ClusterPages.Mirror m = new ClusterMirror(source).rollout(alice, A, "bench-" + i, 0)) {
                    copy(m.runs(), runs);
                }
            }
            copy(tmp.resolve("recorded").resolve("bench-0"), runs.resolve(A).resolve("bench-0").resolve("trajectory"));

            try (ClusterConsoleServer cluster = ClusterConsoleServer.start(source, "127.0.0.1", 0);
                 ConsoleServer local = ConsoleServer.start(runs, "127.0.0.1", 0)) {
                StoreHttp c = new StoreHttp(cluster.port());
                StoreHttp l = new StoreHttp(local.port());
                JsonNode all = ok(c.get("/api/rollouts?size=50", alice));
                assertThat(all.get("all").asInt()).as("alice's rollouts over the cluster: %s", all.get("dir")).isGreaterThanOrEqualTo(ROLLOUTS);
                String id = A + "/bench-0";
                double[] cl = times(20, () -> list(c, alice, ""));
                double[] ll = times(20, () -> list(l, null, ""));
                double[] cf = times(20, () -> list(c, alice, "&detector=test-skip-injection"));
                double[] lf = times(20, () -> list(l, null, "&detector=test-skip-injection"));
                double[] ct = times(10, () -> open(c, alice, id));
                // where a list's time goes: asking the API server and the store, or mirroring what they answer
                double[] src = times(10, () -> source.rollouts(alice, List.of()));
                double[] mir = times(10, () -> new ClusterMirror(source).rollouts(alice, List.of()).close());
                double[] lt = times(10, () -> open(l, null, id));
                System.out.printf("cluster rollouts=%d long_trace_events=%d%n", ROLLOUTS, LONG_EVENTS);
                System.out.printf("cluster_list_p95_ms=%.1f cluster_filter_p95_ms=%.1f cluster_open_trace_first_paint_ms=%.1f%n", p95(cl), p95(cf), p95(ct));
                System.out.printf("cluster_source_rollouts_p95_ms=%.1f cluster_mirror_rollouts_p95_ms=%.1f%n", p95(src), p95(mir));
                System.out.printf("local_list_p95_ms=%.1f local_filter_p95_ms=%.1f local_open_trace_first_paint_ms=%.1f%n", p95(ll), p95(lf), p95(lt));
                System.out.printf("cluster_vs_local_list=%.2f cluster_vs_local_filter=%.2f cluster_vs_local_open_trace=%.2f%n",
                        p95(cl) / p95(ll), p95(cf) / p95(lf), p95(ct) / p95(lt));
            }
        }
    }

    private interface Call {
        void run() throws Exception;
    }

    private static void list(StoreHttp h, String token, String filter) throws Exception {
        ok(h.get("/api/rollouts?size=50" + filter, token));
        ok(h.get("/api/groups?" + filter, token));
    }

    private static void open(StoreHttp h, String token, String id) throws Exception {
        ok(h.get("/api/rollout?id=" + id, token));
        JsonNode page = ok(h.get("/api/trace?from=1&limit=200&id=" + id, token));
        assertThat(page.get("rows")).hasSize(200);
        assertThat(page.get("lastSeq").asLong()).isGreaterThanOrEqualTo(LONG_EVENTS);
        ok(h.get("/api/event?seq=3&id=" + id, token));
    }

    private static JsonNode ok(StoreHttp.Reply r) throws Exception {
        assertThat(r.status()).as(r.toString()).isEqualTo(200);
        return r.json();
    }

    private static double[] times(int n, Call call) throws Exception {
        call.run(); // warm-up
        double[] ms = new double[n];
        for (int i = 0; i < n; i++) {
            long t = System.nanoTime();
            call.run();
            ms[i] = (System.nanoTime() - t) / 1e6;
        }
        Arrays.sort(ms);
        return ms;
    }

    private static double p95(double[] sorted) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(sorted.length * 0.95) - 1)];
    }

    private static Path record(Path tmp, String name, int events, boolean hacked) throws Exception {
        Path dir = tmp.resolve("recorded").resolve(name);
        try (TrajectoryRecorder rec = TrajectoryRecorder.open(dir, RecorderLimits.defaults())) {
            long proc = rec.append(EventKind.PROCESS_START, null, null, Map.of("pid", 100, "command", "sh agents/agent.sh"));
            for (int i = 0; i < events - 3; i++) {
                if (i % 2 == 0) rec.append(EventKind.OUTPUT, null, null, Map.of("stream", "stdout", "text", "step " + i + " ran"));
                else rec.append(EventKind.FILE, null, proc, Map.of("path", "src/f" + (i % 50) + ".py", "op", "modified", "diff", "+x = " + i + "\n"));
            }
            if (hacked) {
                rec.append(EventKind.FINDING, null, proc, Map.of("detector", "test-skip-injection", "rule", "report-rewrite",
                        "severity", "critical", "path", "conftest.py", "evidence", "rep.outcome = \"passed\""));
            }
            rec.append(EventKind.OUTCOME, null, null, Map.of("phase", hacked ? "Hacked" : "Succeeded", "reward", hacked ? 0.0 : 1.0));
        }
        return dir;
    }

    private static void ship(StoreHttp store, String writer, String name, Path dir) throws Exception {
        List<Path> segments;
        try (Stream<Path> w = Files.list(dir.resolve("segments"))) {
            segments = w.sorted().toList();
        }
        for (Path seg : segments) {
            int n = Integer.parseInt(seg.getFileName().toString().replace(".jsonl", ""));
            StoreHttp.Reply put = store.put(rollout(A, name) + "/segments/" + n, writer, Files.readAllBytes(seg));
            assertThat(put.status()).as(put.toString()).isEqualTo(200);
        }
    }

    private static void copy(Path from, Path to) throws Exception {
        try (Stream<Path> w = Files.walk(from)) {
            for (Path p : w.toList()) {
                Path t = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) Files.createDirectories(t);
                else Files.copy(p, t, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }
}
