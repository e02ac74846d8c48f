package dev.crucible.tracestore;

import static dev.crucible.tracestore.StoreHttp.events;
import static dev.crucible.tracestore.StoreHttp.rollout;
import static dev.crucible.tracestore.TwoTeamsCluster.A;
import static dev.crucible.tracestore.TwoTeamsCluster.B;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.crucible.tracestore.auth.KubeAuth;
import dev.crucible.tracestore.common.S3Settings;
import dev.crucible.tracestore.common.StoreSettings;
import dev.crucible.tracestore.http.TraceStoreServer;
import dev.crucible.tracestore.store.S3Storage;
import dev.crucible.tracestore.store.TraceService;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The S3-compatible backend against a real S3 server (moto's server mode, its own process) on the real API server
 * tier, over real HTTP: segments written as one object per append and joined once finished, blobs, retries and
 * conflicts, reads (segments, blobs, ATIF, the index), size and age retention removing the objects, and a store
 * started again on an empty disk that rebuilds its index from the bucket after the Rollout is gone.
 */
class S3BackendOnApiServerTest {
    static MotoServer moto;
    static TwoTeamsCluster k8s;
    static final String BUCKET = "crucible-traces";
    static final byte[] BLOB = "blob ".repeat(3000).getBytes(StandardCharsets.UTF_8);

    @BeforeAll
    static void start() throws Exception {
        moto = MotoServer.start();
        k8s = TwoTeamsCluster.shared();
    }

    @AfterAll
    static void stop() throws Exception {
        if (moto != null) moto.close();
    }

    static String sha(byte[] b) {
        try {
            return StoreHttp.sha256(b);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private record Store(TraceService service, TraceStoreServer server, StoreHttp http) implements AutoCloseable {
        static Store open(StoreSettings s, MutableClock clock) throws Exception {
            TraceService service = new TraceService(s, k8s.admin, clock);
            TraceStoreServer server = TraceStoreServer.start(s, service, new KubeAuth(k8s.admin, Duration.ofSeconds(1),
                    s.writerServiceAccount(), s.writerAudience()));
            return new Store(service, server, new StoreHttp(server.port()));
        }

        @Override
        public void close() throws Exception {
            server.close();
            service.close();
        }
    }

    @Test
    void writesReadsJoinsAndRebuildsItsIndexFromTheBucket() throws Exception {
        S3Settings s3 = moto.bucket(BUCKET);
        k8s.rollout(A, "s3-run", "calc-divide-bugfix", Map.of("team", "a", "model", "m2"));
        String writer = k8s.writer(A);
        String alice = k8s.token(A, "alice", null);
        String bob = k8s.token(B, "bob", null);
        StoreSettings s = StoreSettings.defaults(Files.createTempDirectory("trace-store-s3-")).withPort(0).withS3(s3);
        MutableClock clock = new MutableClock(Instant.parse("2026-11-29T10:00:00Z"));
        String run = rollout(A, "s3-run");
        byte[] seg1 = events(1,
                "\"kind\":\"process.start\",\"data\":{\"pid\":10,\"command\":\"sh agent.sh\"}",
                "\"kind\":\"file\",\"cause\":1,\"data\":{\"path\":\"conftest.py\",\"op\":\"added\",\"content\":{\"blob\":\"sha256:"
                        + sha(BLOB) + "\",\"bytes\":15000,\"head\":\"blob \"}}",
                "\"kind\":\"finding\",\"cause\":2,\"data\":{\"detector\":\"test-skip-injection\",\"path\":\"conftest.py\"}",
                // a framework's handed-in step whose long message went to the blob: the ATIF export reads it back
                "\"kind\":\"agent.step\",\"data\":{\"agent\":\"trainer\",\"atif\":{\"source\":\"agent\",\"message\":{\"blob\":\"sha256:"
                        + sha(BLOB) + "\",\"bytes\":15000,\"head\":\"blob \"}}}");
        byte[] seg2 = events(5, "\"kind\":\"outcome\",\"data\":{\"phase\":\"Hacked\",\"reward\":0.0}");
        int cut = new String(seg1, StandardCharsets.UTF_8).indexOf('\n') + 1;
        String prefix = "rollouts/" + A + "/s3-run/";
        JsonNode rowBefore;
        try (Store st = Store.open(s, clock)) {
            StoreHttp http = st.http();
            ok(http.put(run + "/segments/1", writer, Arrays.copyOf(seg1, cut)));
            // a retry from offset 0 with more: only the new bytes become a second object
            StoreHttp.Reply r = http.put(run + "/segments/1?offset=0", writer, seg1);
            ok(r);
            assertThat(r.json().get("added").asLong()).isEqualTo(seg1.length - cut);
            assertThat(http.put(run + "/segments/1?offset=0", writer, seg1).json().get("added").asLong()).isZero();
            assertThat(moto.keys(BUCKET, prefix + "segments/")).containsExactly(
                    prefix + "segments/000001.parts/0000000000000000", prefix + "segments/000001.parts/" + String.format("%016d", cut));
            // a rewrite and a gap are refused as on the volume, and nothing is stored for them
            byte[] changed = seg1.clone();
            changed[new String(seg1, StandardCharsets.UTF_8).indexOf("agent.sh")] = 'A'; // same length, other bytes
            r = http.put(run + "/segments/1?offset=0", writer, changed);
            assertThat(r.status()).as(r.toString()).isEqualTo(409);
            assertThat(r.json().get("error").asText()).contains("differs from what is stored");
            assertThat(http.put(run + "/segments/1?offset=" + (seg1.length + 5), writer, seg2).status()).isEqualTo(409);
            assertThat(http.put(run + "/segments/3", writer, seg2).status()).isEqualTo(409);

            ok(http.put(run + "/blobs/sha256/" + sha(BLOB), writer, BLOB));
            assertThat(http.put(run + "/blobs/sha256/" + sha(BLOB), writer, BLOB).json().get("added").asLong()).isZero();
            // segment 2 begins: segment 1 is finished and joined into one object, its parts gone
            ok(http.put(run + "/segments/2", writer, seg2));
            ((S3Storage) st.service().files().storage()).awaitCopies(); // the join runs in the background
            assertThat(moto.keys(BUCKET, prefix + "segments/")).containsExactly(
                    prefix + "segments/000001.jsonl", prefix + "segments/000002.parts/0000000000000000");
            try (var c = moto.client()) {
                assertThat(c.getObjectAsBytes(b -> b.bucket(BUCKET).key(prefix + "segments/000001.jsonl")).asByteArray()).isEqualTo(seg1);
            }
            assertThat(moto.keys(BUCKET, prefix)).contains(prefix + "blobs/sha256/" + sha(BLOB).substring(0, 2) + "/" + sha(BLOB),
                    prefix + "store-meta.json");
            // a retry over a joined segment compares with the joined object
            assertThat(http.put(run + "/segments/1?offset=" + cut, writer, Arrays.copyOfRange(seg1, cut, seg1.length))
                    .json().get("added").asLong()).isZero();

            JsonNode segs = http.get(run + "/segments", alice).json().get("segments");
            assertThat(segs).hasSize(2);
            assertThat(segs.get(0).get("bytes").asLong()).isEqualTo(seg1.length);
            assertThat(segs.get(1).get("bytes").asLong()).isEqualTo(seg2.length);
            assertThat(http.get(run + "/segments/1", alice).body()).isEqualTo(seg1);
            assertThat(http.get(run + "/segments/2", alice).body()).isEqualTo(seg2);
            assertThat(http.get(run + "/segments/3", alice).status()).isEqualTo(404);
            assertThat(http.get(run + "/blobs/sha256/" + sha(BLOB), alice).body()).isEqualTo(BLOB);
            assertThat(http.get(run + "/blobs/sha256/" + sha("other".getBytes()), alice).status()).isEqualTo(404);
            assertThat(http.get(run + "/segments/1", bob).status()).isEqualTo(403);
            JsonNode atif = http.get(run + "/atif", alice).json();
            assertThat(atif.get("steps")).hasSize(5);
            // the blob's content is put back into the step from the bucket
            assertThat(atif.get("steps").get(3).get("message").asText()).isEqualTo(new String(BLOB, StandardCharsets.UTF_8));
            rowBefore = http.get(run, alice).json();
            assertThat(rowBefore.get("phase").asText()).isEqualTo("Hacked");
            assertThat(rowBefore.get("bytes").asLong()).isEqualTo(seg1.length + seg2.length + BLOB.length);
            assertThat(st.service().used()).isEqualTo(seg1.length + seg2.length + BLOB.length);
        }

        // The Rollout goes, and the store starts again on an empty disk (a new pod's emptyDir): its index comes back
        // from the bucket, registration included, and the trajectory reads as before.
        k8s.deleteRollout(A, "s3-run");
        StoreSettings fresh = StoreSettings.defaults(Files.createTempDirectory("trace-store-s3-again-")).withPort(0).withS3(s3);
        try (Store st = Store.open(fresh, clock)) {
            JsonNode row = st.http().get(run, alice).json();
            for (String f : new String[] {"environment", "phase", "reward", "detectors", "labels", "bytes", "events", "ended", "uid", "created"}) {
                assertThat(row.get(f)).as(f).isEqualTo(rowBefore.get(f));
            }
            assertThat(st.service().used()).isEqualTo(seg1.length + seg2.length + BLOB.length);
            assertThat(st.http().get(run + "/segments/1", alice).body()).isEqualTo(seg1);
            assertThat(st.http().get("/v1/rollouts?detector=test-skip-injection&label=model=m2", alice).json().get("rollouts")).hasSize(1);
            assertThat(st.http().get(run, bob).status()).isEqualTo(403);
        }
    }

    @Test
    void sizeAndAgeRetentionRemoveTheObjects() throws Exception {
        S3Settings s3 = moto.bucket("crucible-retention");
        for (int i = 1; i <= 3; i++) k8s.rollout(A, "s3-ret-" + i, "env-ret", Map.of());
        String writer = k8s.writer(A);
        String alice = k8s.token(A, "alice", null);
        StoreSettings s = StoreSettings.defaults(Files.createTempDirectory("trace-store-s3-ret-")).withPort(0)
                .withRetention(2000, Duration.ofHours(1)).withS3(s3);
        MutableClock clock = new MutableClock(Instant.parse("2026-11-29T10:00:00Z"));
        try (Store st = Store.open(s, clock)) {
            StoreHttp http = st.http();
            byte[] ended = RetentionOnApiServerTest.padded("outcome", 1000);
            byte[] running = RetentionOnApiServerTest.padded("output", 1000);
            ok(http.put(rollout(A, "s3-ret-1") + "/segments/1", writer, ended));
            clock.advance(Duration.ofMinutes(1));
            ok(http.put(rollout(A, "s3-ret-2") + "/segments/1", writer, running));
            clock.advance(Duration.ofMinutes(1));
            // full: the ended s3-ret-1 goes, objects and all, to make room for s3-ret-3
            ok(http.put(rollout(A, "s3-ret-3") + "/segments/1", writer, running));
            assertThat(moto.keys("crucible-retention", "rollouts/team-a/s3-ret-1/")).isEmpty();
            assertThat(http.get(rollout(A, "s3-ret-1") + "/segments", alice).status()).isEqualTo(404);
            // nothing ended is left to remove: 507 naming the limit, and nothing removed or stored
            StoreHttp.Reply r = http.put(rollout(A, "s3-ret-3") + "/segments/1?offset=1000", writer, events(2, "\"kind\":\"output\",\"data\":{}"));
            assertThat(r.status()).as(r.toString()).isEqualTo(507);
            assertThat(r.json().get("error").asText()).contains("retentionMaxBytes=2000");
            assertThat(moto.keys("crucible-retention", "rollouts/team-a/s3-ret-3/segments/")).hasSize(1);
            assertThat(moto.keys("crucible-retention", "rollouts/team-a/s3-ret-2/segments/")).hasSize(1);
            // age: an hour on, s3-ret-2 (last written 61 minutes ago) goes; s3-ret-3 (60 minutes) stays
            clock.advance(Duration.ofMinutes(60));
            assertThat(st.service().sweep()).isEqualTo(1);
            assertThat(moto.keys("crucible-retention", "rollouts/team-a/s3-ret-2/")).isEmpty();
            assertThat(http.get(rollout(A, "s3-ret-3") + "/segments/1", alice).body()).isEqualTo(running);
            assertThat(st.service().used()).isEqualTo(1000);
        }
    }

    static void ok(StoreHttp.Reply r) {
        assertThat(r.status()).as(r.toString()).isEqualTo(200);
    }
}
