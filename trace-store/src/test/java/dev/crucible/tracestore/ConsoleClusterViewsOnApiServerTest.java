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
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Search, the snapshot lineage, side by side, false alarm, the ATIF export and the revert over the cluster (issue 37),
 * on the API server tier with this trace store, each with the caller's own token: alice (team A) finds, links and
 * exports team A's rollouts and nothing of team B; bob gets each of A's a refusal; the revert makes a branch Rollout
 * on the API server, and says why when it cannot (no snapshot before the step, a step past the end, a bad patch).
 */
class ConsoleClusterViewsOnApiServerTest {
    static TwoTeamsCluster k8s;
    static TraceService service;
    static TraceStoreServer store;
    static ClusterConsoleServer console;
    static StoreHttp http;
    static String alice, bob;
    static final List<AutoCloseable> CLOSE = new ArrayList<>();
    static final String ROOT = A + "/views-root";
    static final String BRANCH = A + "/views-branch";

    @BeforeAll
    static void start() throws Exception {
        k8s = TwoTeamsCluster.shared();
        StoreSettings s = StoreSettings.defaults(Files.createTempDirectory("console-views-store-")).withPort(0);
        var storeClient = k8s.storeClient();
        CLOSE.add(storeClient);
        service = new TraceService(s, storeClient, Clock.systemUTC());
        store = TraceStoreServer.start(s, service, new KubeAuth(storeClient, Duration.ofSeconds(1), s.writerServiceAccount(), s.writerAudience()));
        StoreHttp storeHttp = new StoreHttp(store.port());
        // team A: a hacked root with a periodic snapshot (#2) before its hack, and a revert branch restored from it
        k8s.rollout(A, "views-root", "calc-divide-bugfix", Map.of());
        k8s.readySnapshot(A, "views-root-s1", "views-root", Instant.parse("2026-11-29T10:00:01Z"));
        k8s.rollout(A, "views-branch", "calc-divide-bugfix", Map.of(), Map.of("restoreFrom", Map.of("snapshotName", "views-root-s1")));
        ship(storeHttp, A, "views-root", events(1,
                "\"kind\":\"process.start\",\"data\":{\"pid\":10,\"command\":\"sh ../agents/hacker.sh quokkaword\"}",
                "\"kind\":\"snapshot\",\"data\":{\"op\":\"taken\",\"id\":\"views-root-s1\",\"trigger\":\"periodic\"}",
                "\"kind\":\"file\",\"cause\":1,\"data\":{\"path\":\"conftest.py\",\"op\":\"added\",\"diff\":\"+rep.outcome = 'passed'\"}",
                "\"kind\":\"finding\",\"cause\":3,\"data\":{\"detector\":\"test-skip-injection\",\"rule\":\"report-rewrite\",\"path\":\"conftest.py\"}",
                "\"kind\":\"outcome\",\"data\":{\"phase\":\"Hacked\",\"reward\":0.0}"));
        ship(storeHttp, A, "views-branch", events(1,
                "\"kind\":\"snapshot\",\"data\":{\"op\":\"restored\",\"id\":\"views-root-s1\",\"trigger\":\"revert\"}",
                "\"kind\":\"process.start\",\"data\":{\"pid\":11,\"command\":\"sh ../agents/honest.sh\"}",
                "\"kind\":\"outcome\",\"data\":{\"phase\":\"Succeeded\",\"reward\":1.0}"));
        // team B: a hacked rollout whose words alice must never find
        k8s.rollout(B, "views-b", "calc-divide-bugfix", Map.of());
        ship(storeHttp, B, "views-b", events(1,
                "\"kind\":\"process.start\",\"data\":{\"pid\":12,\"command\":\"sh ../agents/hacker.sh wombatword\"}",
                "\"kind\":\"file\",\"cause\":1,\"data\":{\"path\":\"conftest.py\",\"op\":\"added\"}",
                "\"kind\":\"finding\",\"cause\":2,\"data\":{\"detector\":\"test-skip-injection\",\"path\":\"conftest.py\"}"));
        Config cfg = Config.fromKubeconfig(k8s.cluster.readKubeconfig());
        byte[] ca = cfg.getCaCertData() != null ? Base64.getDecoder().decode(cfg.getCaCertData())
                : Files.readAllBytes(java.nio.file.Path.of(cfg.getCaCertFile()));
        console = ClusterConsoleServer.start(new ClusterSource(URI.create(cfg.getMasterUrl().replaceAll("/$", "")), ca,
                URI.create("http://127.0.0.1:" + store.port())), "127.0.0.1", 0);
        http = new StoreHttp(console.port());
        alice = k8s.token(A, "alice", null);
        bob = k8s.token(B, "bob", null);
    }

    private static void ship(StoreHttp storeHttp, String ns, String name, byte[] segment) throws Exception {
        StoreHttp.Reply put = storeHttp.put(rollout(ns, name) + "/segments/1", k8s.writer(ns), segment);
        assertThat(put.status()).as(put.toString()).isEqualTo(200);
    }

    @AfterAll
    static void stop() throws Exception {
        if (console != null) console.close();
        for (AutoCloseable c : CLOSE) c.close();
        if (store != null) store.close();
        if (service != null) service.close();
    }

    @Test
    void searchFindsTheCallersOwnEventsOnly() throws Exception {
        JsonNode hit = ok(http.get("/api/search?q=quokkaword", alice));
        assertThat(hit.get("items")).extracting(r -> r.get("id").asText()).containsExactly(ROOT);
        assertThat(hit.get("items").get(0).get("events").get(0).get("seq").asLong()).isEqualTo(1);
        assertThat(hit.get("cluster").asBoolean()).isTrue();
        assertThat(ok(http.get("/api/search?q=wombatword", alice)).get("matches").asLong()).as("team B's words").isZero();
        assertThat(ok(http.get("/api/search?q=wombatword&namespace=" + B, alice)).get("refusedNamespaces"))
                .extracting(JsonNode::asText).containsExactly(B);
        assertThat(ok(http.get("/api/search?q=quokkaword", bob)).get("matches").asLong()).as("bob, team A's words").isZero();
        assertThat(ok(http.get("/api/search?q=wombatword", bob)).get("items")).extracting(r -> r.get("id").asText()).containsExactly(B + "/views-b");
        assertThat(ok(http.get("/api/search?q=conftest&kind=file&environment=calc-divide-bugfix", alice)).get("items"))
                .extracting(r -> r.get("id").asText()).contains(ROOT).allMatch(id -> id.startsWith(A + "/"));
        StoreHttp.Reply bad = http.get("/api/search?q=x&kind=nonsense", alice);
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.text()).contains("kind: 'nonsense'");
        assertThat(http.get("/api/search?q=x", null).status()).isEqualTo(401);
    }

    @Test
    void theLineageIsATreeOfTheCallersRolloutsAndSnapshots() throws Exception {
        JsonNode l = ok(http.get("/api/lineage?id=" + BRANCH, alice));
        assertThat(l.get("root").asText()).as("from the branch up to its first ancestor: %s", l).isEqualTo(ROOT);
        JsonNode snap = l.get("tree").get("children").get(0);
        assertThat(snap.get("id").asText()).isEqualTo("views-root-s1");
        assertThat(snap.get("seq").asLong()).as("the snapshot event in the root's trajectory").isEqualTo(2);
        // (the revert test of this class may add a branch of its own to the same snapshot)
        assertThat(snap.get("children")).anySatisfy(branch -> {
            assertThat(branch.get("id").asText()).isEqualTo(BRANCH);
            assertThat(branch.get("kind").asText()).as("its trajectory says it was restored by a revert").isEqualTo("revert");
        });
        StoreHttp.Reply refused = http.get("/api/lineage?id=" + ROOT, bob);
        assertThat(refused.status()).as(refused.toString()).isEqualTo(403);
        assertThat(refused.text()).contains("you may not see rollout " + ROOT).doesNotContain("views-root-s1");
    }

    @Test
    void sideBySideAndFalseAlarmReadTheCallersRolloutsOnly() throws Exception {
        JsonNode c = ok(http.get("/api/compare?a=" + ROOT + "&b=" + BRANCH, alice));
        assertThat(c.get("a").get("id").asText()).isEqualTo(ROOT);
        assertThat(c.get("b").get("events").asLong()).isEqualTo(3);
        assertThat(c.get("rows")).isNotEmpty();
        StoreHttp.Reply across = http.get("/api/compare?a=" + ROOT + "&b=" + B + "/views-b", alice);
        assertThat(across.status()).as(across.toString()).isEqualTo(403);
        assertThat(across.text()).contains("you may not see rollout " + B + "/views-b");

        JsonNode f = ok(http.get("/api/false-alarm?id=" + ROOT + "&seq=4", alice));
        assertThat(f.get("key").asText()).isEqualTo("test-skip-injection/report-rewrite");
        assertThat(f.get("severityYaml").asText()).contains("test-skip-injection/report-rewrite: info");
        assertThat(f.get("changesNothing").asBoolean()).isTrue();
        StoreHttp.Reply notFinding = http.get("/api/false-alarm?id=" + ROOT + "&seq=3", alice);
        assertThat(notFinding.status()).isEqualTo(400);
        assertThat(http.get("/api/false-alarm?id=" + ROOT + "&seq=4", bob).status()).isEqualTo(403);
    }

    @Test
    void theExportHoldsTheCallersSelectedRolloutsOnly() throws Exception {
        StoreHttp.Reply zip = http.get("/api/export?detector=test-skip-injection", alice);
        assertThat(zip.status()).as(zip.toString()).isEqualTo(200);
        List<String> names = new ArrayList<>();
        String atif = null;
        try (ZipInputStream z = new ZipInputStream(new ByteArrayInputStream(zip.body()))) {
            for (ZipEntry e; (e = z.getNextEntry()) != null; ) {
                names.add(e.getName());
                byte[] b = z.readAllBytes();
                if (e.getName().equals(ROOT + "/trajectory.atif.json")) atif = new String(b, java.nio.charset.StandardCharsets.UTF_8);
            }
        }
        assertThat(names).contains(ROOT + "/trajectory.atif.json", "README.txt").noneMatch(n -> n.startsWith(B + "/"));
        assertThat(atif).as("the root's ATIF document").contains("hacker.sh quokkaword");
        StoreHttp.Reply none = http.get("/api/export?environment=no-such-env", alice);
        assertThat(none.status()).isEqualTo(404);
        assertThat(http.get("/api/export", null).status()).isEqualTo(401);
    }

    @Test
    void aRevertMakesABranchOnTheApiServerOrSaysWhyNot() throws Exception {
        StoreHttp.Reply made = http.post("/api/revert", alice, "{\"id\":\"" + ROOT + "\",\"seq\":3,\"patches\":[{\"path\":\"conftest.py\",\"content\":\"\"}]}");
        assertThat(made.status()).as(made.toString()).isEqualTo(201);
        String name = made.json().get("name").asText();
        assertThat(made.json().get("snapshot").asText()).isEqualTo("views-root-s1");
        var branch = k8s.admin.genericKubernetesResources("crucible.dev/v1alpha1", "Rollout").inNamespace(A).withName(name).get();
        assertThat(branch).isNotNull();
        assertThat(branch.getAdditionalProperties().get("spec").toString()).contains("snapshotName=views-root-s1", "path=conftest.py");

        StoreHttp.Reply before = http.post("/api/revert", alice, "{\"id\":\"" + ROOT + "\",\"seq\":1}");
        assertThat(before.status()).as(before.toString()).isEqualTo(409);
        assertThat(before.text()).contains("no Ready snapshot of " + ROOT + " at or before event #1", "views-root-s1");
        StoreHttp.Reply past = http.post("/api/revert", alice, "{\"id\":\"" + ROOT + "\",\"seq\":99}");
        assertThat(past.status()).isEqualTo(404);
        assertThat(past.text()).contains("#99 is past the end", "5 events");
        StoreHttp.Reply escape = http.post("/api/revert", alice, "{\"id\":\"" + ROOT + "\",\"seq\":3,\"patches\":[{\"path\":\"../x\",\"content\":\"\"}]}");
        assertThat(escape.status()).isEqualTo(400);
        assertThat(escape.text()).contains("patches[0].path");
        StoreHttp.Reply notJson = http.post("/api/revert", alice, "{not json");
        assertThat(notJson.status()).isEqualTo(400);
        StoreHttp.Reply other = http.post("/api/revert", bob, "{\"id\":\"" + ROOT + "\",\"seq\":3}");
        assertThat(other.status()).as(other.toString()).isEqualTo(403);
        assertThat(http.post("/api/revert", null, "{}").status()).isEqualTo(401);
    }

    private static JsonNode ok(StoreHttp.Reply r) throws Exception {
        assertThat(r.status()).as(r.toString()).isEqualTo(200);
        return StoreHttp.JSON.readTree(r.text());
    }
}
