package dev.crucible.tracestore;

import static dev.crucible.tracestore.TwoTeamsCluster.A;
import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.tracestore.auth.KubeAuth;
import dev.crucible.tracestore.common.StoreSettings;
import dev.crucible.tracestore.http.TraceStoreServer;
import dev.crucible.tracestore.store.TraceService;
import dev.crucible.trajectory.RecorderLimits;
import dev.crucible.trajectory.TraceShipper;
import dev.crucible.trajectory.TrajectoryReader;
import dev.crucible.trajectory.TrajectoryRecorder;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 36's bad input on the store's side, seen by the sidecar's shipper: a store that is full (507) and one that
 * refuses a segment as too large (413). Neither loses anything of the recording (the local folder reads back whole)
 * nor throws at the run; the shipper names the store's reason (which the sidecar puts in the rollout's status as
 * "trajectory incomplete", as {@code PodSidecarTest} shows for an unreachable store), retries the full store (room may
 * come back) and stops for good on the refusal that retrying cannot pass. The store keeps only whole lines.
 */
class ShipperRefusalsOnApiServerTest {

    @Test
    void aFullStoreAndATooLargeSegmentLeaveTheRecordingWholeAndAreNamed() throws Exception {
        TwoTeamsCluster k8s = TwoTeamsCluster.shared();
        k8s.rollout(A, "refused-full", "env-refused", Map.of());
        k8s.rollout(A, "refused-big", "env-refused", Map.of());
        Path storeDir = Files.createTempDirectory("trace-store-refusals-");
        // 6,000 bytes in all for the store; segments of at most 3,000 bytes
        StoreSettings s = StoreSettings.defaults(storeDir).withPort(0).withRetention(6000, Duration.ofHours(1)).withLimits(64 << 10, 3000, 1 << 20);
        TraceService service = new TraceService(s, k8s.admin, Clock.systemUTC());
        TraceStoreServer server = TraceStoreServer.start(s, service, new KubeAuth(k8s.admin, Duration.ofMinutes(5),
                s.writerServiceAccount(), s.writerAudience()));
        String writer = k8s.writer(A);
        String alice = k8s.token(A, "alice", null);
        try {
            StoreHttp http = new StoreHttp(server.port());

            // Full: segments that each fit (15 events, about 2,300 bytes), 4 of them: the third no longer fits the store's 6,000 bytes.
            Path full = Files.createTempDirectory("trajectory-full-");
            List<Long> written = record(full, 60, 60, 15);
            TraceShipper a = new TraceShipper(full, url(server, "refused-full"), () -> writer);
            assertThat(a.ship()).isFalse();
            assertThat(a.problems()).last().asString().contains("507").contains("the trace store is full");
            assertThat(a.stopped()).as("a full store may have room later: tried again").isFalse();
            assertThat(a.ship()).isFalse(); // and again refused, nothing sent twice
            assertThat(readBack(full)).isEqualTo(written);
            assertStoredIsWholeLinesOf(http, alice, "refused-full", full);

            // Too large: one segment of the recording passes the store's maxSegmentBytes: refused for good.
            Path big = Files.createTempDirectory("trajectory-big-");
            List<Long> bigWritten = record(big, 200, 60, 1 << 20);
            TraceShipper b = new TraceShipper(big, url(server, "refused-big"), () -> writer);
            assertThat(b.ship()).isFalse();
            assertThat(b.problems()).last().asString().contains("413").contains("maxSegmentBytes=3000");
            assertThat(b.stopped()).as("a segment too large never fits: no retry").isTrue();
            int problems = b.problems().size();
            assertThat(b.ship()).isFalse();
            assertThat(b.problems()).hasSize(problems); // stopped: nothing sent, nothing new to say
            assertThat(readBack(big)).isEqualTo(bigWritten);
            assertStoredIsWholeLinesOf(http, alice, "refused-big", big);
        } finally {
            server.close();
            service.close();
        }
    }

    private static URI url(TraceStoreServer server, String name) {
        return URI.create("http://127.0.0.1:" + server.port() + StoreHttp.rollout(A, name));
    }

    /** {@code n} output events of {@code text} characters, {@code perSegment} to a segment; their seqs. */
    private static List<Long> record(Path dir, int n, int text, int perSegment) {
        List<Long> seqs = new ArrayList<>();
        try (TrajectoryRecorder rec = TrajectoryRecorder.open(dir, RecorderLimits.defaults().withSegment(perSegment, 1 << 20))) {
            for (int i = 0; i < n; i++) seqs.add(rec.append("output", null, null, Map.of("stream", "stdout", "text", "x".repeat(text) + i)));
        }
        return seqs;
    }

    private static List<Long> readBack(Path dir) throws Exception {
        List<Long> seqs = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        TrajectoryReader.read(dir, e -> { if ("output".equals(e.kind())) seqs.add(e.seq()); }, problems::add);
        assertThat(problems).isEmpty();
        return seqs;
    }

    /** What the store holds of each segment is a prefix of the local one that ends on a whole line. */
    private static void assertStoredIsWholeLinesOf(StoreHttp http, String token, String name, Path local) throws Exception {
        StoreHttp.Reply list = http.get(StoreHttp.rollout(A, name) + "/segments", token);
        if (list.status() == 404) return; // nothing stored at all
        for (var seg : list.json().get("segments")) {
            int n = seg.get("number").asInt();
            byte[] remote = http.get(StoreHttp.rollout(A, name) + "/segments/" + n, token).body();
            byte[] mine = Files.readAllBytes(local.resolve("segments").resolve(String.format("%06d.jsonl", n)));
            assertThat(mine).startsWith(remote);
            if (remote.length > 0) assertThat(remote[remote.length - 1]).isEqualTo((byte) '\n');
        }
    }
}
