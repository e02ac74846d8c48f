package dev.crucible.console;

import static dev.crucible.console.ConsoleApiTest.JSON;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.crucible.console.http.ConsoleServer;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Search, the snapshot lineage, two rollouts side by side and the false-alarm policy change, over real HTTP on a RUNS
 * folder written by the real recorder: 6 conftest hacks and 2 honest runs of calc, and a lineage (a root with two
 * snapshots, a branch from the first, a revert from the second, and a branch of the branch).
 */
class ConsoleViewsTest {
    @TempDir
    static Path runs;
    static ConsoleServer server;

    @BeforeAll
    static void start() throws Exception {
        for (int i = 0; i < 6; i++) {
            RunsFixture.attempt(runs, "hack/h" + i, "calc", "2026-11-29T10:0" + i + ":00Z", List.of(RunsFixture.conftestHack(9 + i)));
        }
        for (int i = 0; i < 2; i++) RunsFixture.attempt(runs, "honest/o" + i, "calc", "2026-11-29T09:0" + i + ":00Z", List.of());
        LineageFixture.rollout(runs, "tree/root", "snap", null, null, List.of("s1", "s2"), 0.0, 3);
        LineageFixture.rollout(runs, "tree/branch", "snap", "s1", null, List.of("s3"), 1.0, 4);
        LineageFixture.rollout(runs, "tree/revert", "snap", "s2", "revert", List.of(), 0.5, 2);
        LineageFixture.rollout(runs, "tree/branch2", "snap", "s3", null, List.of(), 1.0, 1);
        server = ConsoleServer.start(runs, "127.0.0.1", 0);
        server.search().sync(); // the indexer's pass, waited for (it runs in the background every 2 s)
    }

    @AfterAll
    static void stop() {
        if (server != null) server.close();
    }

    static HttpResponse<String> get(String pathAndQuery) throws Exception {
        return ConsoleApiTest.HTTP.send(HttpRequest.newBuilder(URI.create(server.url() + pathAndQuery.substring(1))).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    static JsonNode ok(String q) throws Exception {
        HttpResponse<String> r = get(q);
        assertThat(r.statusCode()).as(q + " → " + r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    static String error(String q, int status) throws Exception {
        HttpResponse<String> r = get(q);
        assertThat(r.statusCode()).as(q + " → " + r.body()).isEqualTo(status);
        return JSON.readTree(r.body()).get("error").asText();
    }

    static String enc(String s) { return URLEncoder.encode(s, StandardCharsets.UTF_8); }

    @Test
    void searchFindsTheDiffThatHackedAndLinksItsEvent() throws Exception {
        JsonNode r = ok("/api/search?q=" + enc("rep.outcome \"passed\""));
        assertThat(r.get("rollouts").asInt()).isEqualTo(6); // the hack's diff and findings, in the 6 hacked runs only
        assertThat(r.at("/indexing/done").asBoolean()).isTrue();
        List<String> ids = new ArrayList<>();
        for (JsonNode it : r.get("items")) {
            ids.add(it.get("id").asText());
            assertThat(it.get("phase").asText()).isEqualTo("Hacked");
        }
        assertThat(ids).allMatch(id -> id.startsWith("hack/"));
        JsonNode file = ok("/api/search?kind=file&q=" + enc("rep.outcome")).at("/items/0/events/0");
        assertThat(file.get("kind").asText()).isEqualTo("file");
        assertThat(file.get("snippet").asText()).contains("rep.outcome");
        // the hit's event is the file change with the diff: what /trace?rollout=ID&event=SEQ opens
        String id = ok("/api/search?kind=file&q=" + enc("rep.outcome")).at("/items/0/id").asText();
        JsonNode ev = ok("/api/event?id=" + enc(id) + "&seq=" + file.get("seq").asLong());
        assertThat(ev.get("diff").asText()).contains("+        rep.outcome = \"passed\"");
    }

    @Test
    void searchReadsBlobsAndCommandsAndFilters() throws Exception {
        // END-OF-OUTPUT is past the event's head: only in the output's blob
        assertThat(ok("/api/search?q=end+of+output").get("rollouts").asInt()).isEqualTo(8);
        assertThat(ok("/api/search?q=" + enc("agents/honest.sh")).get("rollouts").asInt()).isEqualTo(2);
        assertThat(ok("/api/search?q=" + enc("calc/ops.py") + "&phase=Succeeded").get("rollouts").asInt()).isEqualTo(2);
        assertThat(ok("/api/search?q=conftest&detector=test-skip-injection&kind=finding").get("matches").asInt()).isEqualTo(6);
        assertThat(ok("/api/search?q=conftest&environment=snap").get("matches").asInt()).isZero();
        assertThat(ok("/api/search?q=nothingmatchesthisword").get("items")).isEmpty();
        JsonNode paged = ok("/api/search?q=conftest&size=4&page=2");
        assertThat(paged.get("items")).hasSize(2);
        assertThat(paged.get("pages").asInt()).isEqualTo(2);
    }

    @Test
    void searchIndexesRolloutsThatAppearLater() throws Exception {
        RunsFixture.attempt(runs, "late/l0", "calc", "2026-11-29T11:00:00Z",
                List.of(new RunsFixture.Finding("grader-tamper", "hash-changed", "high", "tests/zebra_unique.py", "grader changed")));
        long until = System.currentTimeMillis() + 20_000;
        int found = 0;
        while (found == 0 && System.currentTimeMillis() < until) { // the store rescans at most every 2 s, then the indexer's pass
            Thread.sleep(300);
            found = ok("/api/search?q=zebra_unique").get("rollouts").asInt();
        }
        assertThat(found).isEqualTo(1);
        // and a rollout whose folder is gone is dropped from the index
        try (var files = java.nio.file.Files.walk(runs.resolve("late"))) {
            for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) java.nio.file.Files.delete(f);
        }
        until = System.currentTimeMillis() + 20_000;
        while (found > 0 && System.currentTimeMillis() < until) {
            Thread.sleep(300);
            found = ok("/api/search?q=zebra_unique").get("rollouts").asInt();
        }
        assertThat(found).isZero();
        // the index is never written under RUNS (the agent's folders): no Lucene file there
        try (var files = java.nio.file.Files.walk(runs)) {
            assertThat(files.map(f -> f.getFileName().toString())).noneMatch(n -> n.equals("write.lock") || n.startsWith("segments_"));
        }
    }

    @Test
    void searchBadInputIsA400NamingTheParameter() throws Exception {
        assertThat(error("/api/search", 400)).startsWith("q:");
        assertThat(error("/api/search?q=" + enc("!!! ..."), 400)).contains("no letters or digits");
        assertThat(error("/api/search?q=x&kind=nope", 400)).startsWith("kind:").contains("file");
        assertThat(error("/api/search?q=x&page=0", 400)).startsWith("page:");
        assertThat(error("/api/search?q=x&colour=red", 400)).contains("unknown parameter 'colour'");
        assertThat(error("/api/search?q=" + "a".repeat(600), 400)).startsWith("q: 600 characters");
    }

    @Test
    void lineageIsATreeOfSnapshotsBranchesAndReverts() throws Exception {
        JsonNode t = ok("/api/lineage?id=tree/branch2"); // from a leaf, the tree starts at its first ancestor
        assertThat(t.get("root").asText()).isEqualTo("tree/root");
        JsonNode root = t.get("tree");
        assertThat(root.get("reward").asDouble()).isEqualTo(0.0);
        assertThat(root.get("children")).hasSize(2);
        JsonNode s1 = root.at("/children/0");
        assertThat(s1.get("id").asText()).isEqualTo("s1");
        assertThat(s1.get("link").asText()).isEqualTo("/trace?rollout=tree%2Froot&event=" + s1.get("seq").asLong());
        JsonNode branch = s1.at("/children/0");
        assertThat(branch.get("id").asText()).isEqualTo("tree/branch");
        assertThat(branch.get("kind").asText()).isEqualTo("branch");
        assertThat(branch.get("reward").asDouble()).isEqualTo(1.0);
        assertThat(branch.at("/children/0/id").asText()).isEqualTo("s3");
        assertThat(branch.at("/children/0/children/0/id").asText()).isEqualTo("tree/branch2");
        JsonNode revert = root.at("/children/1/children/0");
        assertThat(revert.get("id").asText()).isEqualTo("tree/revert");
        assertThat(revert.get("kind").asText()).isEqualTo("revert");
        assertThat(revert.get("reward").asDouble()).isEqualTo(0.5);
        // the snapshot's link opens the event that recorded it
        JsonNode ev = ok("/api/event?id=tree/root&seq=" + s1.get("seq").asLong());
        assertThat(ev.get("kind").asText()).isEqualTo("snapshot");
        assertThat(error("/api/lineage?id=no/such", 404)).contains("no rollout 'no/such'");
        assertThat(error("/api/lineage", 400)).startsWith("id:");
    }

    @Test
    void compareAlignsTwoRolloutsOfOneTaskOnTheirSteps() throws Exception {
        JsonNode c = ok("/api/compare?a=tree/branch&b=tree/revert");
        assertThat(c.get("environment").asText()).isEqualTo("snap");
        assertThat(c.at("/a/steps").asLong()).isEqualTo(5); // step 0 (the restore) and 4 commands
        assertThat(c.at("/b/steps").asLong()).isEqualTo(3);
        assertThat(c.get("rows")).hasSize(5);
        JsonNode step2 = c.at("/rows/2");
        assertThat(step2.get("step").asLong()).isEqualTo(2);
        assertThat(step2.at("/a/0/summary").asText()).contains("step1.py tree-branch");
        assertThat(step2.at("/b/0/summary").asText()).contains("step1.py tree-revert");
        assertThat(c.at("/rows/4/b")).isEmpty(); // b has no fourth command: its side is empty there
        JsonNode page = ok("/api/compare?a=tree/branch&b=tree/revert&from=3&limit=1");
        assertThat(page.get("rows")).hasSize(1);
        assertThat(page.at("/rows/0/step").asLong()).isEqualTo(3);
        assertThat(error("/api/compare?a=tree/branch&b=hack/h0", 400)).contains("not rollouts of the same task").contains("calc");
        assertThat(error("/api/compare?a=tree/branch", 400)).startsWith("b:");
        assertThat(error("/api/compare?a=tree/branch&b=no/such", 404)).contains("no/such");
        assertThat(error("/api/compare?a=tree/branch&b=tree/revert&limit=0", 400)).startsWith("limit:");
    }

    @Test
    void falseAlarmShowsThePolicyChangeAndChangesNothing() throws Exception {
        JsonNode a = ok("/api/false-alarm?id=hack/h0&seq=4"); // #4: the first finding (after process, output, file)
        assertThat(a.get("key").asText()).isEqualTo("test-skip-injection/report-rewrite");
        assertThat(a.get("severityYaml").asText()).contains("spec:\n  hackPolicy:\n    severity:\n      test-skip-injection/report-rewrite: info");
        assertThat(a.get("ignoreYaml").asText()).contains("    ignore:\n      - test-skip-injection/report-rewrite");
        assertThat(a.at("/alsoAffected/rollouts").asInt()).isEqualTo(6);
        assertThat(a.get("changesNothing").asBoolean()).isTrue();
        assertThat(error("/api/false-alarm?id=hack/h0&seq=3", 400)).contains("is a file event, not a finding");
        assertThat(error("/api/false-alarm?id=hack/h0&seq=99", 404)).contains("past the end");
        assertThat(error("/api/false-alarm?id=hack/h0", 400)).startsWith("seq:");
    }

    @Test
    void everyViewHasItsPage() throws Exception {
        for (String p : List.of("/search?q=x", "/lineage?rollout=tree/root", "/compare?a=tree/branch&b=tree/revert",
                "/false-alarm?rollout=hack/h0&event=4")) {
            HttpResponse<String> r = get(p);
            assertThat(r.statusCode()).as(p).isEqualTo(200);
            assertThat(r.body()).contains("<script src=\"/assets/").contains("id=\"error\"");
        }
        for (String js : List.of("search.js", "lineage.js", "compare.js", "false-alarm.js")) assertThat(get("/assets/" + js).statusCode()).isEqualTo(200);
    }
}
