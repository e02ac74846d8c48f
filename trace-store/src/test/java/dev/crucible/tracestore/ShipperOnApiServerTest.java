package dev.crucible.tracestore;

import dev.crucible.tracestore.common.StoreSettings;
import static dev.crucible.tracestore.TwoTeamsCluster.A;
import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.tracestore.auth.KubeAuth;
import dev.crucible.tracestore.http.TraceStoreServer;
import dev.crucible.tracestore.store.TraceService;
import dev.crucible.trajectory.RecorderLimits;
import dev.crucible.trajectory.TraceShipper;
import dev.crucible.trajectory.TrajectoryRecorder;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The sidecar's side: a {@link TrajectoryRecorder} writes a trajectory (several segments, blobs) while a
 * {@link TraceShipper} sends it to a real store on the API server tier with the writer's token, every 300 ms. What
 * the store holds is then byte for byte the local folder; a shipper stopped without a last round (a crash) leaves
 * the store with everything written up to its last round and nothing torn.
 */
class ShipperOnApiServerTest {

    @Test
    void aRecordingIsStreamedToTheStoreAndACrashLosesOnlyTheLastRound() throws Exception {
        TwoTeamsCluster k8s = TwoTeamsCluster.shared();
        k8s.rollout(A, "shipped", "env-ship", Map.of());
        Path storeDir = Files.createTempDirectory("trace-store-ship-");
        StoreSettings s = StoreSettings.defaults(storeDir).withPort(0);
        TraceService service = new TraceService(s, k8s.admin, Clock.systemUTC());
        TraceStoreServer server = TraceStoreServer.start(s, service, new KubeAuth(k8s.admin, Duration.ofMinutes(5),
                s.writerServiceAccount(), s.writerAudience()));
        String writer = k8s.writer(A);
        String alice = k8s.token(A, "alice", null);
        Path local = Files.createTempDirectory("trajectory-");
        try {
            StoreHttp http = new StoreHttp(server.port());
            URI url = URI.create("http://127.0.0.1:" + server.port() + StoreHttp.rollout(A, "shipped"));
            TrajectoryRecorder rec = TrajectoryRecorder.open(local, RecorderLimits.defaults().withSegment(50, 1 << 20));
            TraceShipper shipper = new TraceShipper(local, url, () -> writer).start(Duration.ofMillis(300));
            for (int i = 0; i < 120; i++) {
                rec.append("output", null, null, Map.of("stream", "stdout", "text", i % 10 == 0 ? "big-" + i + "-" + "z".repeat(6000) : "line " + i));
            }
            rec.flush();
            long local1 = segmentBytes(local);
            waitUntil(() -> shipper.shippedBytes() >= local1, "the shipper sends the first 120 events");
            // A crash: no last round. What the recorder writes from here on never reaches the store.
            shipper.abandon();
            for (int i = 0; i < 30; i++) rec.append("output", null, null, Map.of("stream", "stdout", "text", "after " + i));
            rec.close();
            assertThat(shipper.problems()).isEmpty();

            var segs = http.get(StoreHttp.rollout(A, "shipped") + "/segments", alice).json().get("segments");
            assertThat(segs).hasSize(3); // 50 events a segment: 120 events are 50 + 50 + 20
            long stored = 0;
            for (var seg : segs) {
                int n = seg.get("number").asInt();
                byte[] remote = http.get(StoreHttp.rollout(A, "shipped") + "/segments/" + n, alice).body();
                byte[] mine = Files.readAllBytes(local.resolve("segments").resolve(String.format("%06d.jsonl", n)));
                assertThat(mine).startsWith(remote);
                assertThat(remote[remote.length - 1]).isEqualTo((byte) '\n');
                stored += remote.length;
            }
            assertThat(stored).isEqualTo(local1);
            var atif = http.get(StoreHttp.rollout(A, "shipped") + "/atif", alice).json();
            assertThat(atif.get("steps")).hasSize(120);
            // Every blob the stored events refer to is stored (12 outputs of 6 KB went to blobs).
            try (var blobs = Files.walk(storeDir.resolve("rollouts/team-a/shipped/blobs"))) {
                assertThat(blobs.filter(Files::isRegularFile).count()).isEqualTo(12);
            }

            // A new shipper for the same folder (the sidecar restarted) sends the rest: nothing twice, nothing lost.
            try (TraceShipper again = new TraceShipper(local, url, () -> writer)) {
                assertThat(again.ship()).isTrue();
                assertThat(again.problems()).isEmpty();
            }
            long total = 0;
            for (var seg : http.get(StoreHttp.rollout(A, "shipped") + "/segments", alice).json().get("segments")) {
                total += seg.get("bytes").asLong();
            }
            assertThat(total).isEqualTo(segmentBytes(local));
            assertThat(http.get(StoreHttp.rollout(A, "shipped") + "/atif", alice).json().get("steps").size())
                    .isEqualTo(151); // 150 events and the recorder's trajectory.end
        } finally {
            server.close();
            service.close();
        }
    }

    private static long segmentBytes(Path dir) throws Exception {
        try (var s = Files.list(dir.resolve("segments"))) {
            return s.mapToLong(p -> p.toFile().length()).sum();
        }
    }

    private interface Check { boolean ok() throws Exception; }

    private static void waitUntil(Check c, String what) throws Exception {
        long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!c.ok()) {
            if (System.nanoTime() > end) throw new AssertionError("timed out waiting until " + what);
            Thread.sleep(100);
        }
    }
}
