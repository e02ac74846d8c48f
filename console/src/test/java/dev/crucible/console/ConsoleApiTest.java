package dev.crucible.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.console.http.ConsoleServer;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console's JSON API over real HTTP, on a RUNS folder of 53 attempts: 45 of them the same conftest.py hack (its
 * evidence names a different line each time), 5 honest, 3 with another detector in another environment.
 */
class ConsoleApiTest {
    @TempDir
    static Path runs;
    static ConsoleServer server;
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final ObjectMapper JSON = new ObjectMapper();

    @BeforeAll
    static void start() throws Exception {
        for (int i = 0; i < 45; i++) {
            Path a = RunsFixture.attempt(runs, "hack/h" + String.format("%02d", i), "calc", "2026-11-29T10:%02d:00Z".formatted(i),
                    List.of(RunsFixture.conftestHack(9 + i)));
            RunsFixture.label(a, Map.of("team", i < 10 ? "a" : "b", "crucible.dev/suite", "nightly"));
        }
        for (int i = 0; i < 5; i++) {
            RunsFixture.label(RunsFixture.attempt(runs, "honest/o" + i, "calc", "2026-11-29T09:0" + i + ":00Z", List.of()), Map.of("team", "a"));
        }
        for (int i = 0; i < 3; i++) {
            RunsFixture.attempt(runs, "other/x" + i, "web", "2026-11-29T08:0" + i + ":00Z",
                    List.of(new RunsFixture.Finding("grader-tamper", "hash-changed", "high", "tests/test_app.py", "grader file changed (" + (100 + i) + " bytes)")));
        }
        server = ConsoleServer.start(runs, "127.0.0.1", 0);
    }

    @AfterAll
    static void stop() {
        if (server != null) server.close();
    }

    static HttpResponse<String> get(String pathAndQuery) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(server.url() + pathAndQuery.substring(1))).build(), HttpResponse.BodyHandlers.ofString());
    }

    static JsonNode ok(String pathAndQuery) throws Exception {
        HttpResponse<String> r = get(pathAndQuery);
        assertThat(r.statusCode()).as(pathAndQuery + " → " + r.body()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("application/json");
        return JSON.readTree(r.body());
    }

    static String error(String pathAndQuery, int status) throws Exception {
        HttpResponse<String> r = get(pathAndQuery);
        assertThat(r.statusCode()).as(pathAndQuery + " → " + r.body()).isEqualTo(status);
        return JSON.readTree(r.body()).get("error").asText();
    }

    static String enc(String s) { return URLEncoder.encode(s, StandardCharsets.UTF_8); }

    @Test
    void listsEveryRolloutPagedNewestFirst() throws Exception {
        JsonNode p1 = ok("/api/rollouts?size=20");
        assertThat(p1.get("all").asInt()).isEqualTo(53);
        assertThat(p1.get("total").asInt()).isEqualTo(53);
        assertThat(p1.get("pages").asInt()).isEqualTo(3);
        assertThat(p1.get("items")).hasSize(20);
        assertThat(p1.at("/items/0/id").asText()).isEqualTo("hack/h44");
        JsonNode p3 = ok("/api/rollouts?size=20&page=3");
        assertThat(p3.get("items")).hasSize(13);
        assertThat(p3.at("/items/12/id").asText()).isEqualTo("other/x0");
        List<String> ids = new ArrayList<>();
        for (int page = 1; page <= 3; page++) ok("/api/rollouts?size=20&page=" + page).get("items").forEach(i -> ids.add(i.get("id").asText()));
        assertThat(ids).hasSize(53).doesNotHaveDuplicates();
    }

    @Test
    void filtersByEnvironmentPhaseRewardDetectorAndSeverity() throws Exception {
        assertThat(ok("/api/rollouts?detector=test-skip-injection").get("total").asInt()).isEqualTo(45);
        assertThat(ok("/api/rollouts?environment=web").get("total").asInt()).isEqualTo(3);
        assertThat(ok("/api/rollouts?phase=Succeeded").get("total").asInt()).isEqualTo(5);
        assertThat(ok("/api/rollouts?minReward=0.5").get("total").asInt()).isEqualTo(5);
        assertThat(ok("/api/rollouts?maxReward=0").get("total").asInt()).isEqualTo(48);
        assertThat(ok("/api/rollouts?severity=high").get("total").asInt()).isEqualTo(3);
        // a finding filter matches one finding with all of them: no calc rollout has a high test-skip finding
        assertThat(ok("/api/rollouts?detector=test-skip-injection&severity=high").get("total").asInt()).isZero();
        assertThat(ok("/api/rollouts?environment=calc&detector=grader-tamper").get("total").asInt()).isZero();
        assertThat(ok("/api/rollouts?since=2026-11-29T10:40:00Z").get("total").asInt()).isEqualTo(5);
    }

    @Test
    void labelsFilterTheListAndTheCountsAsALabelSelector() throws Exception {
        assertThat(ok("/api/rollouts?label=" + enc("team=a")).get("total").asInt()).isEqualTo(15);
        assertThat(ok("/api/rollouts?label=team").get("total").asInt()).isEqualTo(50);
        assertThat(ok("/api/rollouts?label=" + enc("!team")).get("total").asInt()).isEqualTo(3);
        // as in Kubernetes, != also matches a rollout without the label
        assertThat(ok("/api/rollouts?label=" + enc("team!=b")).get("total").asInt()).isEqualTo(18);
        assertThat(ok("/api/rollouts?label=" + enc("team=a,crucible.dev/suite=nightly")).get("total").asInt()).isEqualTo(10);
        assertThat(ok("/api/rollouts?label=" + enc("team==b") + "&detector=test-skip-injection").get("total").asInt()).isEqualTo(35);
        JsonNode item = ok("/api/rollouts?size=1&label=" + enc("team=b")).at("/items/0");
        assertThat(item.get("id").asText()).isEqualTo("hack/h44");
        assertThat(item.at("/labels/team").asText()).isEqualTo("b");
        assertThat(item.at("/labels/crucible.dev~1suite").asText()).isEqualTo("nightly");
        assertThat(ok("/api/rollouts?environment=web").at("/items/0/labels").isEmpty()).isTrue();
        assertThat(ok("/api/groups?label=" + enc("team=a")).at("/byPattern/0/rollouts").asInt()).isEqualTo(10);
        assertThat(error("/api/rollouts?label=" + enc("te am=a"), 400)).contains("label", "'te am'", "not a label key");
        assertThat(error("/api/rollouts?label=" + enc("team=a b"), 400)).contains("label", "'a b'", "not a label value");
        assertThat(error("/api/rollouts?label=" + enc("team=a,"), 400)).contains("label", "empty term");
    }

    @Test
    void oneHackInFortyFiveRunsIsOnePatternRowWithFortyFiveBehindIt() throws Exception {
        JsonNode g = ok("/api/groups");
        JsonNode patterns = g.get("byPattern");
        assertThat(patterns).hasSize(2);
        JsonNode hack = patterns.get(0);
        assertThat(hack.get("detector").asText()).isEqualTo("test-skip-injection");
        assertThat(hack.get("rollouts").asInt()).isEqualTo(45);
        assertThat(hack.get("path").asText()).isEqualTo("conftest.py");
        assertThat(hack.get("shape").asText()).isEqualTo("test report outcome rewritten to passed (line #): rep.outcome = \"…\"");
        assertThat(patterns.get(1).get("rollouts").asInt()).isEqualTo(3);
        JsonNode byPattern = ok("/api/rollouts?size=500&pattern=" + hack.get("pattern").asText());
        assertThat(byPattern.get("total").asInt()).isEqualTo(45);
        byPattern.get("items").forEach(i -> assertThat(i.get("id").asText()).startsWith("hack/"));

        assertThat(g.get("byEnvironmentDetector").toString()).contains(
                "{\"environment\":\"calc\",\"detector\":\"test-skip-injection\",\"rollouts\":45,\"findings\":45}",
                "{\"environment\":\"web\",\"detector\":\"grader-tamper\",\"rollouts\":3,\"findings\":3}");
        assertThat(g.at("/values/detector").toString()).isEqualTo("[\"grader-tamper\",\"test-skip-injection\"]");
        JsonNode calc = g.get("environments").get(0);
        assertThat(calc.get("environment").asText()).isEqualTo("calc");
        assertThat(calc.get("rollouts").asInt()).isEqualTo(50);
        assertThat(calc.get("solveRate").asDouble()).isEqualTo(0.1);
        // the groups follow the filters
        assertThat(ok("/api/groups?environment=web").get("byPattern")).hasSize(1);
    }

    @Test
    void theTraceMarksEachFindingAtTheEventWhereItBeganAndAStepShowsItsCallOutputAndDiff() throws Exception {
        JsonNode t = ok("/api/trace?id=" + enc("hack/h03"));
        assertThat(t.get("present").asBoolean()).isTrue();
        assertThat(t.get("events").asInt()).isEqualTo(8);
        assertThat(t.get("problems")).isEmpty();
        JsonNode finding = t.get("findings").get(0);
        assertThat(finding.get("seq").asInt()).isEqualTo(4);
        assertThat(finding.get("at").asInt()).isEqualTo(3);
        JsonNode change = t.get("rows").get(2);
        assertThat(change.get("kind").asText()).isEqualTo("file");
        assertThat(change.get("findings").toString()).isEqualTo("[4]");
        assertThat(t.get("rows").get(0).get("findings")).isEmpty();

        JsonNode f = ok("/api/event?id=" + enc("hack/h03") + "&seq=4");
        assertThat(f.get("kind").asText()).isEqualTo("finding");
        assertThat(f.get("output").asText()).contains("line 12");
        assertThat(f.at("/causes/0/seq").asInt()).isEqualTo(3);
        assertThat(f.at("/causes/1/seq").asInt()).as("the process that made the change").isEqualTo(1);

        JsonNode d = ok("/api/event?id=" + enc("hack/h03") + "&seq=3");
        assertThat(d.get("diff").asText()).contains("+++ b/conftest.py", "+        rep.outcome = \"passed\"");
        assertThat(d.get("call").asText()).isEqualTo("added conftest.py");
        assertThat(d.at("/caused/0/seq").asInt()).isEqualTo(4);

        JsonNode out = ok("/api/event?id=" + enc("hack/h03") + "&seq=2");
        assertThat(out.get("output").asText()).as("the blob read back whole").isEqualTo(RunsFixture.LONG_OUTPUT);
        JsonNode proc = ok("/api/event?id=" + enc("hack/h03") + "&seq=1");
        assertThat(proc.get("call").asText()).startsWith("sh agents/hacker.sh");

        JsonNode onlyFiles = ok("/api/trace?id=" + enc("hack/h03") + "&kind=file,finding");
        assertThat(onlyFiles.get("rows")).extracting(r -> r.get("seq").asInt()).containsExactly(3, 4);
        assertThat(ok("/api/trace?id=" + enc("hack/h03") + "&from=5&limit=2").get("rows")).extracting(r -> r.get("seq").asInt()).containsExactly(5, 6);

        JsonNode rollout = ok("/api/rollout?id=" + enc("hack/h03"));
        assertThat(rollout.at("/result/tests/details/0/id").asText()).isEqualTo("tests/test_ops.py::test_divide_negative");
        assertThat(rollout.at("/summary/findings/0/detector").asText()).isEqualTo("test-skip-injection");
    }

    @Test
    void theSelectedRolloutsExportAsABundleOfAtifDocuments() throws Exception {
        HttpResponse<byte[]> r = HTTP.send(HttpRequest.newBuilder(URI.create(server.url() + "api/export?environment=web")).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type").orElse("")).isEqualTo("application/zip");
        assertThat(r.headers().firstValue("Content-Disposition").orElse("")).contains("crucible-atif-3.zip");
        List<String> names = new ArrayList<>();
        try (var z = new java.util.zip.ZipInputStream(new java.io.ByteArrayInputStream(r.body()))) {
            for (var e = z.getNextEntry(); e != null; e = z.getNextEntry()) {
                names.add(e.getName());
                byte[] b = z.readAllBytes();
                if (e.getName().equals("README.txt")) {
                    assertThat(new String(b, StandardCharsets.UTF_8)).contains("filters: environment=web", "3 documents.");
                    continue;
                }
                JsonNode doc = JSON.readTree(b);
                assertThat(doc.get("schema_version").asText()).isEqualTo("ATIF-v1.8");
                assertThat(doc.get("steps")).as("one step per event").hasSize(8);
                assertThat(doc.toString()).contains("grader-tamper", "tests/test_app.py");
            }
        }
        assertThat(names).containsExactly("other/x2/trajectory.atif.json", "other/x1/trajectory.atif.json", "other/x0/trajectory.atif.json", "README.txt");
        assertThat(error("/api/export?environment=nowhere", 404)).contains("no rollout matches");
        assertThat(error("/api/export?minReward=x", 400)).contains("minReward");
    }

    @Test
    void badParametersAreA400NamingTheParameter() throws Exception {
        assertThat(error("/api/rollouts?minReward=abc", 400)).contains("minReward", "abc");
        assertThat(error("/api/rollouts?page=0", 400)).contains("page");
        assertThat(error("/api/rollouts?size=100000", 400)).contains("size");
        assertThat(error("/api/rollouts?colour=red", 400)).contains("unknown parameter 'colour'");
        assertThat(error("/api/rollouts?since=yesterday", 400)).contains("since", "RFC 3339");
        assertThat(error("/api/rollouts?minReward=1&maxReward=0", 400)).contains("minReward", "maxReward");
        assertThat(error("/api/event?id=" + enc("hack/h03") + "&seq=abc", 400)).contains("seq", "abc");
        assertThat(error("/api/event?id=" + enc("hack/h03"), 400)).contains("seq");
        assertThat(error("/api/trace?id=" + enc("hack/h03") + "&limit=0", 400)).contains("limit");
        assertThat(error("/api/trace", 400)).contains("id");
    }

    @Test
    void anUnknownRolloutOrAnEventPastTheEndIsA404SayingSo() throws Exception {
        assertThat(error("/api/rollout?id=nope", 404)).contains("no rollout 'nope'");
        assertThat(error("/api/trace?id=nope", 404)).contains("no rollout 'nope'");
        assertThat(error("/api/event?id=" + enc("../../etc") + "&seq=1", 404)).contains("no rollout '../../etc'");
        assertThat(error("/api/event?id=" + enc("hack/h03") + "&seq=99", 404))
                .isEqualTo("event #99 is past the end of rollout 'hack/h03': its trajectory has 8 events (#1–#8)");
        assertThat(error("/api/nothing", 404)).contains("/api/nothing");
        HttpResponse<String> page = get("/no/such/page");
        assertThat(page.statusCode()).isEqualTo(404);
        assertThat(page.body()).contains("No page at /no/such/page", "href=\"/\"");
        assertThat(get("/no/%3Cscript%3Ealert(1)%3C%2Fscript%3E").body()).doesNotContain("<script>");
    }

    @Test
    void theAssetsComeFromTheConsoleItselfWithAPolicyThatForbidsAnyOtherOrigin() throws Exception {
        for (String page : List.of("/", "/trace?rollout=x")) {
            HttpResponse<String> r = get(page);
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().firstValue("Content-Security-Policy").orElse("")).contains("default-src 'self'");
            var refs = java.util.regex.Pattern.compile("(?:src|href)=\"([^\"]*)\"").matcher(r.body());
            int n = 0;
            while (refs.find()) {
                String ref = refs.group(1);
                assertThat(ref).as("every asset is the console's own").startsWith("/");
                if (ref.startsWith("/assets/")) {
                    HttpResponse<String> a = get(ref);
                    assertThat(a.statusCode()).as(ref).isEqualTo(200);
                    assertThat(a.body()).as(ref + " loads nothing from elsewhere").doesNotContain("http://", "https://", "@import");
                    n++;
                }
            }
            assertThat(n).isGreaterThanOrEqualTo(3);
        }
        assertThat(get("/assets/../pom.xml").statusCode()).isEqualTo(404);
        assertThat(get("/assets/nothing.js").statusCode()).isEqualTo(404);
    }
}
