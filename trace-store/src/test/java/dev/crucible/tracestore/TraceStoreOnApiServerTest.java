package dev.crucible.tracestore;

import dev.crucible.tracestore.common.StoreSettings;
import static dev.crucible.tracestore.StoreHttp.events;
import static dev.crucible.tracestore.StoreHttp.rollout;
import static dev.crucible.tracestore.TwoTeamsCluster.A;
import static dev.crucible.tracestore.TwoTeamsCluster.B;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.crucible.tracestore.auth.KubeAuth;
import dev.crucible.tracestore.http.TraceStoreServer;
import dev.crucible.tracestore.store.TraceService;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The store on the real API server tier, over real HTTP: the sidecar's writer streams a rollout's trajectory, its
 * team reads it back (segments, blobs, ATIF, index) also after the Rollout is deleted, the other team sees nothing,
 * and bad input, wrong tokens and an unknown rollout get a status and a message that name what was wrong.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TraceStoreOnApiServerTest {
    static TwoTeamsCluster k8s;
    static TraceService service;
    static TraceStoreServer server;
    static StoreHttp http;
    static String alice, bob, writerA, writerB;
    static final String RUN_A = rollout(A, "run-a");
    static final String RUN_B = rollout(B, "run-b");
    static final byte[] BLOB = "x".repeat(10_000).getBytes(StandardCharsets.UTF_8);
    static final List<AutoCloseable> CLOSE = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        k8s = TwoTeamsCluster.shared();
        Path dir = Files.createTempDirectory("trace-store-");
        StoreSettings s = StoreSettings.defaults(dir).withPort(0).withLimits(64 << 10, 256 << 10, 1 << 20);
        // The store runs as its own ServiceAccount with the chart's ClusterRole, not as the cluster's admin.
        var storeClient = k8s.storeClient();
        CLOSE.add(storeClient);
        service = new TraceService(s, storeClient, Clock.systemUTC());
        server = TraceStoreServer.start(s, service, new KubeAuth(storeClient, Duration.ofSeconds(1), s.writerServiceAccount(), s.writerAudience()));
        http = new StoreHttp(server.port());
        k8s.rollout(A, "run-a", "calc-divide-bugfix", Map.of("team", "a", "model", "m1"));
        k8s.rollout(B, "run-b", "calc-divide-bugfix", Map.of("team", "b"));
        alice = k8s.token(A, "alice", null);
        bob = k8s.token(B, "bob", null);
        writerA = k8s.writer(A);
        writerB = k8s.writer(B);
    }

    @AfterAll
    static void stop() throws Exception {
        for (AutoCloseable c : CLOSE) c.close();
        if (server != null) server.close();
        if (service != null) service.close();
    }

    static byte[] segmentA() {
        return events(1,
                "\"kind\":\"process.start\",\"data\":{\"pid\":10,\"command\":\"sh agent.sh\"}",
                "\"kind\":\"file\",\"cause\":1,\"data\":{\"path\":\"conftest.py\",\"op\":\"added\",\"content\":{\"blob\":\"sha256:"
                        + sha(BLOB) + "\",\"bytes\":10000,\"head\":\"xxx\"}}",
                "\"kind\":\"finding\",\"cause\":2,\"data\":{\"detector\":\"test-skip-injection\",\"path\":\"conftest.py\"}",
                "\"kind\":\"outcome\",\"data\":{\"phase\":\"Hacked\",\"reward\":0.0}");
    }

    static String sha(byte[] b) {
        try {
            return StoreHttp.sha256(b);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    @Order(1)
    void theWriterStreamsAndItsTeamReadsItBack() throws Exception {
        byte[] all = segmentA();
        int cut = new String(all, StandardCharsets.UTF_8).indexOf('\n', 1) + 1; // after the first line
        byte[] first = Arrays.copyOf(all, cut);
        assertThat(http.put(RUN_A + "/segments/1", writerA, first).status()).isEqualTo(200);
        // The rest, sent from offset 0 again (a retry after a lost reply): only the new bytes are stored.
        StoreHttp.Reply r = http.put(RUN_A + "/segments/1?offset=0", writerA, all);
        assertThat(r.status()).as(r.toString()).isEqualTo(200);
        assertThat(r.json().get("added").asLong()).isEqualTo(all.length - cut);
        assertThat(http.put(RUN_A + "/segments/1?offset=0", writerA, all).json().get("added").asLong()).isZero();
        assertThat(http.put(RUN_A + "/blobs/sha256/" + sha(BLOB), writerA, BLOB).status()).isEqualTo(200);
        assertThat(http.put(RUN_A + "/blobs/sha256/" + sha(BLOB), writerA, BLOB).json().get("added").asLong()).isZero();

        JsonNode segs = http.get(RUN_A + "/segments", alice).json();
        assertThat(segs.get("segments").get(0).get("number").asInt()).isEqualTo(1);
        assertThat(segs.get("segments").get(0).get("bytes").asLong()).isEqualTo(all.length);
        assertThat(http.get(RUN_A + "/segments/1", alice).body()).isEqualTo(all);
        assertThat(http.get(RUN_A + "/blobs/sha256/" + sha(BLOB), alice).body()).isEqualTo(BLOB);
        JsonNode atif = http.get(RUN_A + "/atif", alice).json();
        assertThat(atif.get("schema_version").asText()).isEqualTo("ATIF-v1.8");
        assertThat(atif.get("steps")).hasSize(4);
        assertThat(atif.get("steps").get(2).get("extra").get("crucible").get("kind").asText()).isEqualTo("finding");

        JsonNode row = http.get("/v1/rollouts?detector=test-skip-injection", alice).json().get("rollouts");
        assertThat(row).hasSize(1);
        assertThat(row.get(0).get("name").asText()).isEqualTo("run-a");
        assertThat(row.get(0).get("environment").asText()).isEqualTo("calc-divide-bugfix");
        assertThat(row.get(0).get("phase").asText()).isEqualTo("Hacked");
        assertThat(row.get(0).get("reward").asDouble()).isEqualTo(0.0);
        assertThat(row.get(0).get("labels").get("model").asText()).isEqualTo("m1");
        assertThat(row.get(0).get("bytes").asLong()).isEqualTo(all.length + BLOB.length);
        assertThat(http.get("/v1/rollouts?label=model=m2", alice).json().get("rollouts")).isEmpty();
    }

    @Test
    @Order(2)
    void theOtherTeamSeesNothingOfIt() throws Exception {
        assertThat(http.put(RUN_B + "/segments/1", writerB, events(1, "\"kind\":\"outcome\",\"data\":{\"phase\":\"Succeeded\",\"reward\":1.0}")).status())
                .isEqualTo(200);
        for (String path : List.of(RUN_A, RUN_A + "/segments", RUN_A + "/segments/1", RUN_A + "/atif", RUN_A + "/blobs/sha256/" + sha(BLOB))) {
            StoreHttp.Reply r = http.get(path, bob);
            assertThat(r.status()).as(path).isEqualTo(403);
            assertThat(r.text()).contains("system:serviceaccount:team-b:bob cannot get rollouts.crucible.dev \\\"run-a\\\" in namespace team-a");
        }
        JsonNode bobs = http.get("/v1/rollouts", bob).json().get("rollouts");
        assertThat(bobs).hasSize(1);
        assertThat(bobs.get(0).get("namespace").asText()).isEqualTo(B);
        assertThat(http.get("/v1/rollouts?namespace=team-a", bob).status()).isEqualTo(403);
        assertThat(http.get("/v1/rollouts", alice).json().get("rollouts")).extracting(n -> n.get("name").asText()).containsExactly("run-a");
        assertThat(http.get(RUN_B + "/segments/1", bob).status()).isEqualTo(200);
    }

    @Test
    @Order(3)
    void tokensAreCheckedByTheApiServer() throws Exception {
        byte[] one = events(1, "\"kind\":\"output\",\"data\":{\"text\":\"hi\"}");
        assertThat(http.get(RUN_A + "/segments", null).status()).isEqualTo(401);
        assertThat(http.get(RUN_A + "/segments", "not-a-token").status()).isEqualTo(401);
        // A reader's token is for the API server's audience, not the store's: it cannot write.
        StoreHttp.Reply r = http.put(RUN_A + "/segments/2", alice, one);
        assertThat(r.status()).as(r.toString()).isEqualTo(401);
        assertThat(r.text()).contains("for audience crucible-trace-store");
        // Team B's writer is a writer, but not of team A.
        r = http.put(RUN_A + "/segments/2", writerB, one);
        assertThat(r.status()).isEqualTo(403);
        assertThat(r.text()).contains("only system:serviceaccount:team-a:crucible-trace-writer");
        // A writer's token is no reader's.
        assertThat(http.get(RUN_A + "/segments", writerA).status()).isEqualTo(401);
        assertThat(service.files().segments(A, "run-a")).hasSize(1);
    }

    @Test
    @Order(4)
    void badInputIsRefusedNamingWhatAndNothingStoredChanges() throws Exception {
        byte[] before = http.get(RUN_A + "/segments/1", alice).body();
        long size = before.length;
        expect(http.put(RUN_A + "/segments/2", writerA, "{\"seq\":5,\"kind\":\"output\"}\nnot json\n".getBytes()), 400, "segment 2 line 2: not JSON");
        expect(http.put(RUN_A + "/segments/2", writerA, "{\"seq\":5,\"kind\":\"output\"}".getBytes()), 400, "must end with a newline");
        expect(http.put(RUN_A + "/segments/2", writerA, "{\"kind\":\"output\"}\n".getBytes()), 400, "positive integer 'seq'");
        expect(http.put(RUN_A + "/segments/1?offset=" + (size + 10), writerA, events(9, "\"kind\":\"output\"")), 409, "would leave a gap");
        expect(http.put(RUN_A + "/segments/1?offset=0", writerA, events(1, "\"kind\":\"output\"")), 409, "differs from what is stored");
        expect(http.put(RUN_A + "/segments/3", writerA, events(9, "\"kind\":\"output\"")), 409, "comes before segment 2");
        expect(http.put(RUN_A + "/segments/0", writerA, events(9, "\"kind\":\"output\"")), 400, "outside 1..999999");
        expect(http.put(RUN_A + "/segments/x", writerA, events(9, "\"kind\":\"output\"")), 400, "segment number 'x'");
        byte[] big = events(9, "\"kind\":\"output\",\"data\":{\"text\":\"" + "y".repeat(70_000) + "\"}");
        expect(http.put(RUN_A + "/segments/2", writerA, big), 413, "maxChunkBytes=65536");
        // Appends that each fit, until the segment would pass its limit (256 KiB).
        byte[] part = events(9, "\"kind\":\"output\",\"data\":{\"text\":\"" + "y".repeat(60_000) + "\"}");
        long off = 0;
        StoreHttp.Reply r;
        while ((r = http.put(RUN_A + "/segments/2?offset=" + off, writerA, part)).status() == 200) off += part.length;
        expect(r, 413, "maxSegmentBytes=262144");
        assertThat(off).isEqualTo(4L * part.length);
        expect(http.put(RUN_A + "/blobs/sha256/" + "0".repeat(64), writerA, BLOB), 400, "hashes to sha256:" + sha(BLOB));
        expect(http.put(RUN_A + "/blobs/sha256/ABC", writerA, BLOB), 400, "64 lower-case hex digits");
        expect(http.put(rollout(A, "no-such-run") + "/segments/1", writerA, events(1, "\"kind\":\"output\"")), 404,
                "unknown rollout: there is no Rollout team-a/no-such-run");
        expect(http.put(rollout("Team_A", "x") + "/segments/1", writerA, events(1, "\"kind\":\"output\"")), 400, "namespace 'Team_A'");
        expect(http.get(rollout(A, "no-such-run") + "/segments", alice), 404, "the store holds no trajectory of team-a/no-such-run");
        expect(http.get(RUN_A + "/segments/7", alice), 404, "segment 7 of team-a/run-a is not stored");
        expect(http.get("/v1/rollouts?minReward=high", alice), 400, "minReward 'high' is not a number");
        assertThat(http.get(RUN_A + "/segments/1", alice).body()).isEqualTo(before);
        assertThat(service.files().segments(A, "run-a")).hasSize(2);
        assertThat(service.files().segments(A, "no-such-run")).isEmpty();
    }

    @Test
    @Order(5)
    void theTrajectoryOutlivesItsRollout() throws Exception {
        k8s.deleteRollout(A, "run-a");
        assertThat(k8s.admin.genericKubernetesResources("crucible.dev/v1alpha1", "Rollout").inNamespace(A).withName("run-a")
                .get()).isNull();
        assertThat(http.get(RUN_A + "/segments/1", alice).body()).isEqualTo(segmentA());
        assertThat(http.get(RUN_A + "/atif", alice).json().get("steps").size()).isGreaterThanOrEqualTo(4);
        assertThat(http.get(RUN_A + "/atif", bob).status()).isEqualTo(403);
        assertThat(http.get("/v1/rollouts?environment=calc-divide-bugfix", alice).json().get("rollouts")).hasSize(1);
    }

    static void expect(StoreHttp.Reply r, int status, String message) throws Exception {
        assertThat(r.status()).as(r.toString()).isEqualTo(status);
        assertThat(r.json().get("error").asText()).as(r.toString()).contains(message);
    }
}
