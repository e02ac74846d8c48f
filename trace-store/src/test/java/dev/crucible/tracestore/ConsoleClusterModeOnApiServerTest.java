package dev.crucible.tracestore;

import static dev.crucible.tracestore.StoreHttp.events;
import static dev.crucible.tracestore.StoreHttp.rollout;
import static dev.crucible.tracestore.TwoTeamsCluster.A;
import static dev.crucible.tracestore.TwoTeamsCluster.B;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.crucible.console.cluster.ClusterConsoleServer;
import dev.crucible.console.cluster.ClusterSource;
import dev.crucible.tracestore.auth.KubeAuth;
import dev.crucible.tracestore.common.StoreSettings;
import dev.crucible.tracestore.http.TraceStoreServer;
import dev.crucible.tracestore.store.TraceService;
import io.fabric8.kubernetes.client.Config;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The console's cluster mode (issue 37, point 1) on the real API server tier, with this trace store: two teams, each
 * allowed to get and list Rollouts in its own namespace only. Each person's token goes to the API server and the store
 * as theirs, so alice sees team A's rollouts (live, with their stored trajectories) and reads their events, bob only
 * team B's; bob reading team A's trajectory is the store's 403; a Rollout deleted in the API server stays visible to
 * its team from the store.
 */
class ConsoleClusterModeOnApiServerTest {
    static TwoTeamsCluster k8s;
    static TraceService service;
    static TraceStoreServer store;
    static ClusterConsoleServer console;
    static StoreHttp consoleHttp;
    static String alice, bob;
    static final List<AutoCloseable> CLOSE = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        k8s = TwoTeamsCluster.shared();
        StoreSettings s = StoreSettings.defaults(Files.createTempDirectory("console-cluster-store-")).withPort(0);
        var storeClient = k8s.storeClient();
        CLOSE.add(storeClient);
        service = new TraceService(s, storeClient, Clock.systemUTC());
        store = TraceStoreServer.start(s, service, new KubeAuth(storeClient, Duration.ofSeconds(1), s.writerServiceAccount(), s.writerAudience()));
        StoreHttp storeHttp = new StoreHttp(store.port());
        for (String team : List.of(A, B)) {
            String name = "console-" + team;
            k8s.rollout(team, name, "calc-divide-bugfix", Map.of("team", team));
            byte[] seg = events(1,
                    "\"kind\":\"process.start\",\"data\":{\"pid\":10,\"command\":\"sh ../agents/hacker.sh\"}",
                    "\"kind\":\"file\",\"cause\":1,\"data\":{\"path\":\"conftest.py\",\"op\":\"added\"}",
                    "\"kind\":\"finding\",\"cause\":2,\"data\":{\"detector\":\"test-skip-injection\",\"path\":\"conftest.py\"}",
                    "\"kind\":\"grading\",\"data\":{\"command\":\"pytest\",\"tests\":[]}",
                    "\"kind\":\"outcome\",\"data\":{\"phase\":\"Hacked\",\"reward\":0.0}");
            StoreHttp.Reply put = storeHttp.put(rollout(team, name) + "/segments/1", k8s.writer(team), seg);
            assertThat(put.status()).as(put.toString()).isEqualTo(200);
        }
        Config cfg = Config.fromKubeconfig(k8s.cluster.readKubeconfig());
        byte[] ca = cfg.getCaCertData() != null ? Base64.getDecoder().decode(cfg.getCaCertData())
                : Files.readAllBytes(java.nio.file.Path.of(cfg.getCaCertFile()));
        console = ClusterConsoleServer.start(new ClusterSource(URI.create(cfg.getMasterUrl().replaceAll("/$", "")), ca,
                URI.create("http://127.0.0.1:" + store.port())), "127.0.0.1", 0);
        consoleHttp = new StoreHttp(console.port());
        alice = k8s.token(A, "alice", null);
        bob = k8s.token(B, "bob", null);
    }

    @AfterAll
    static void stop() throws Exception {
        if (console != null) console.close();
        for (AutoCloseable c : CLOSE) c.close();
        if (store != null) store.close();
        if (service != null) service.close();
    }

    @Test
    void eachPersonSeesTheRolloutsAndTrajectoriesOfTheirOwnNamespaceOnly() throws Exception {
        JsonNode a = ok(consoleHttp.get("/api/cluster/rollouts?namespace=" + B, alice));
        // (another test of this class, and the module's other classes, add Rollouts to team A)
        assertThat(a.get("rollouts")).extracting(r -> r.get("namespace").asText()).containsOnly(A);
        JsonNode row = null;
        for (JsonNode r : a.get("rollouts")) if (r.get("name").asText().equals("console-" + A)) row = r;
        assertThat(row).as("alice's rollouts: %s", a).isNotNull();
        assertThat(row.get("live").asBoolean()).as("read from the API server: %s", row).isTrue();
        assertThat(row.get("environment").asText()).isEqualTo("calc-divide-bugfix");
        assertThat(row.get("stored").get("events").asLong()).isEqualTo(5);
        assertThat(row.get("stored").get("detectors")).extracting(JsonNode::asText).containsExactly("test-skip-injection");
        assertThat(a.get("refusedNamespaces")).extracting(JsonNode::asText).as("asked for, refused by the API server").containsExactly(B);

        JsonNode b = ok(consoleHttp.get("/api/cluster/rollouts", bob));
        // (the module's other classes share the cluster and add their own Rollouts to both namespaces)
        assertThat(b.get("rollouts")).extracting(r -> r.get("namespace").asText()).containsOnly(B);
        assertThat(b.get("rollouts")).extracting(r -> r.get("name").asText()).contains("console-" + B);

        JsonNode trace = ok(consoleHttp.get("/api/cluster/trace?namespace=" + A + "&name=console-" + A + "&from=2&limit=2", alice));
        assertThat(trace.get("events")).extracting(e -> e.get("kind").asText()).containsExactly("file", "finding");
        assertThat(trace.get("events").get(0).get("data").get("path").asText()).isEqualTo("conftest.py");
        assertThat(trace.get("more").asBoolean()).isTrue();

        StoreHttp.Reply refused = consoleHttp.get("/api/cluster/trace?namespace=" + A + "&name=console-" + A, bob);
        assertThat(refused.status()).as(refused.toString()).isEqualTo(403);
        assertThat(refused.text()).doesNotContain("conftest.py");
    }

    @Test
    void aDeletedRolloutStaysVisibleToItsTeamFromTheStore() throws Exception {
        k8s.rollout(A, "console-gone", "calc-divide-bugfix", Map.of());
        StoreHttp.Reply put = new StoreHttp(store.port()).put(rollout(A, "console-gone") + "/segments/1", k8s.writer(A),
                events(1, "\"kind\":\"outcome\",\"data\":{\"phase\":\"Succeeded\",\"reward\":1.0}"));
        assertThat(put.status()).as(put.toString()).isEqualTo(200);
        k8s.deleteRollout(A, "console-gone");
        JsonNode gone = null;
        for (JsonNode r : ok(consoleHttp.get("/api/cluster/rollouts", alice)).get("rollouts")) {
            if (r.get("name").asText().equals("console-gone")) gone = r;
        }
        assertThat(gone).as("the deleted Rollout's row").isNotNull();
        assertThat(gone.get("live").asBoolean()).isFalse();
        assertThat(gone.get("phase").asText()).isEqualTo("Succeeded");
        assertThat(ok(consoleHttp.get("/api/cluster/trace?namespace=" + A + "&name=console-gone", alice)).get("events")).hasSize(1);
    }

    @Test
    void noTokenABadNameOrABadLimitIsRefusedWithItsReason() throws Exception {
        StoreHttp.Reply none = consoleHttp.get("/api/cluster/rollouts", null);
        assertThat(none.status()).isEqualTo(401);
        assertThat(none.text()).contains("bearer token");
        StoreHttp.Reply badName = consoleHttp.get("/api/cluster/trace?namespace=Team_A&name=x", alice);
        assertThat(badName.status()).isEqualTo(400);
        assertThat(badName.text()).contains("namespace 'Team_A'");
        StoreHttp.Reply badLimit = consoleHttp.get("/api/cluster/trace?namespace=" + A + "&name=console-" + A + "&limit=0", alice);
        assertThat(badLimit.status()).isEqualTo(400);
        assertThat(badLimit.text()).contains("limit '0'");
        StoreHttp.Reply unknown = consoleHttp.get("/api/cluster/trace?namespace=" + A + "&name=nothing-here", alice);
        assertThat(unknown.status()).as("alice may get Rollouts in team-a, so the store says it has none: %s", unknown).isEqualTo(404);
        StoreHttp.Reply forged = consoleHttp.get("/api/cluster/rollouts", "not-a-token");
        assertThat(forged.status()).as(forged.toString()).isEqualTo(401);
    }

    /** The pages' API over the cluster: the local console's answers, ids namespace/name, each refusal a message. */
    @Test
    void thePagesApiAnswersOverTheClusterAndSaysWhyWhenItCannot() throws Exception {
        JsonNode page = ok(consoleHttp.get("/api/rollouts?detector=test-skip-injection&namespace=" + B, alice));
        assertThat(page.get("items")).extracting(r -> r.get("id").asText()).contains(A + "/console-" + A).allMatch(id -> id.startsWith(A + "/"));
        assertThat(page.get("refusedNamespaces")).extracting(JsonNode::asText).containsExactly(B);
        assertThat(page.get("cluster").asBoolean()).isTrue();
        JsonNode trace = ok(consoleHttp.get("/api/trace?id=" + A + "/console-" + A, alice));
        assertThat(trace.get("findings")).extracting(f -> f.get("detector").asText()).containsExactly("test-skip-injection");
        assertThat(trace.get("findings").get(0).get("at").asLong()).as("marked at the file change that caused it").isEqualTo(2);
        JsonNode event = ok(consoleHttp.get("/api/event?id=" + A + "/console-" + A + "&seq=2", alice));
        assertThat(event.get("kind").asText()).isEqualTo("file");

        StoreHttp.Reply past = consoleHttp.get("/api/event?id=" + A + "/console-" + A + "&seq=99", alice);
        assertThat(past.status()).as(past.toString()).isEqualTo(404);
        assertThat(past.text()).contains("#99");
        StoreHttp.Reply refused = consoleHttp.get("/api/trace?id=" + A + "/console-" + A, bob);
        assertThat(refused.status()).as(refused.toString()).isEqualTo(403);
        assertThat(refused.text()).contains("you may not see rollout " + A + "/console-" + A).doesNotContain("conftest.py");
        StoreHttp.Reply unknown = consoleHttp.get("/api/rollout?id=" + A + "/nothing-here", alice);
        assertThat(unknown.status()).as(unknown.toString()).isEqualTo(404);
        assertThat(unknown.text()).contains("no rollout " + A + "/nothing-here");
        StoreHttp.Reply notAnId = consoleHttp.get("/api/rollout?id=just-a-name", alice);
        assertThat(notAnId.status()).isEqualTo(400);
        assertThat(notAnId.text()).contains("not namespace/name");
        // search over the cluster (ConsoleClusterViewsOnApiServerTest has the rest): alice's events only
        JsonNode search = ok(consoleHttp.get("/api/search?q=conftest", alice));
        assertThat(search.get("items")).extracting(r -> r.get("id").asText()).contains(A + "/console-" + A).allMatch(id -> id.startsWith(A + "/"));
        assertThat(consoleHttp.get("/api/rollouts", null).status()).isEqualTo(401);
        StoreHttp.Reply page200 = consoleHttp.get("/assets/common.js", null);
        assertThat(page200.status()).as("the pages and scripts need no token; the data does").isEqualTo(200);
    }

    private static JsonNode ok(StoreHttp.Reply r) throws Exception {
        assertThat(r.status()).as(r.toString()).isEqualTo(200);
        return StoreHttp.JSON.readTree(r.text());
    }
}
