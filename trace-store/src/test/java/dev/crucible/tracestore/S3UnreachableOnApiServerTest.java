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
 * The object store goes away in the middle of a run (its moto process is stopped): the store stays up and answers
 * 503 naming the object store, counts nothing it did not store, and the sidecar's shipper keeps the reason (which the
 * sidecar puts in the rollout's status as "trajectory incomplete") and keeps trying, while the recording goes on
 * whole on the pod's side.
 */
class S3UnreachableOnApiServerTest {

    @Test
    void anObjectStoreThatGoesAwayLeavesTheRecordingWholeAndIsNamed() throws Exception {
        TwoTeamsCluster k8s = TwoTeamsCluster.shared();
        k8s.rollout(A, "s3-gone", "env-gone", Map.of());
        MotoServer moto = MotoServer.start();
        StoreSettings s = StoreSettings.defaults(Files.createTempDirectory("trace-store-s3-gone-")).withPort(0)
                .withS3(moto.bucket("crucible-gone"));
        TraceService service = new TraceService(s, k8s.admin, Clock.systemUTC());
        TraceStoreServer server = TraceStoreServer.start(s, service, new KubeAuth(k8s.admin, Duration.ofMinutes(5),
                s.writerServiceAccount(), s.writerAudience()));
        String writer = k8s.writer(A);
        String alice = k8s.token(A, "alice", null);
        Path dir = Files.createTempDirectory("trajectory-gone-");
        List<Long> written = new ArrayList<>();
        try (TrajectoryRecorder rec = TrajectoryRecorder.open(dir, RecorderLimits.defaults().withSegment(25, 1 << 20))) {
            URI url = URI.create("http://127.0.0.1:" + server.port() + StoreHttp.rollout(A, "s3-gone"));
            TraceShipper shipper = new TraceShipper(dir, url, () -> writer);
            for (int i = 0; i < 40; i++) written.add(rec.append("output", null, null, Map.of("stream", "stdout", "text", "line " + i)));
            assertThat(shipper.ship()).as(String.valueOf(shipper.problems())).isTrue();
            long stored = service.used();
            assertThat(stored).isEqualTo(shipper.shippedBytes());

            moto.close(); // the object store is gone; the run goes on
            for (int i = 40; i < 80; i++) written.add(rec.append("output", null, null, Map.of("stream", "stdout", "text", "line " + i)));
            assertThat(shipper.ship()).isFalse();
            assertThat(shipper.problems()).last().asString().contains("503").contains("the object store at " + moto.endpoint())
                    .contains("could not be reached");
            assertThat(shipper.stopped()).as("the object store may come back: tried again").isFalse();
            assertThat(shipper.ship()).isFalse();
            assertThat(service.used()).as("nothing counted that was not stored").isEqualTo(stored);

            // the store itself stays up; a read names the object store
            StoreHttp http = new StoreHttp(server.port());
            assertThat(http.get("/healthz", null).status()).isEqualTo(200);
            StoreHttp.Reply r = http.get(StoreHttp.rollout(A, "s3-gone") + "/segments/1", alice);
            assertThat(r.status()).as(r.toString()).isEqualTo(503);
            assertThat(r.json().get("error").asText()).contains("could not be reached");
        } finally {
            server.close();
            service.close();
            moto.close();
        }
        List<Long> back = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        TrajectoryReader.read(dir, e -> { if ("output".equals(e.kind())) back.add(e.seq()); }, problems::add);
        assertThat(problems).isEmpty();
        assertThat(back).isEqualTo(written);
    }
}
