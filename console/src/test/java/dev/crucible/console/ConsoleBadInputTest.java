package dev.crucible.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.console.http.ConsoleServer;
import dev.crucible.console.store.ResultFile;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a damaged or hostile RUNS folder does to the console: each case is a clear message in the answer, the rest of
 * the store still served, never a 500.
 */
class ConsoleBadInputTest {
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final ObjectMapper JSON = new ObjectMapper();

    static JsonNode get(ConsoleServer s, String q, int status) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(s.url() + q.substring(1))).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(q + " → " + r.body()).isEqualTo(status);
        return JSON.readTree(r.body());
    }

    @Test
    void aBrokenSegmentIsNamedByFileAndLineAndTheRestOfTheTraceIsShown(@TempDir Path runs) throws Exception {
        Path a = RunsFixture.attempt(runs, "a", "calc", "2026-11-29T10:00:00Z", List.of(RunsFixture.conftestHack(9)));
        Path seg = a.resolve("trajectory/segments/000001.jsonl");
        List<String> lines = Files.readAllLines(seg);
        lines.set(1, "{\"seq\": 2, \"kind\": [not json");
        Files.write(seg, lines);
        Files.writeString(seg, "{\"seq\":99,\"time\":\"x\",\"kind\":\"output\",\"data\":{\"text\":\"torn", StandardOpenOption.APPEND);
        try (ConsoleServer s = ConsoleServer.start(runs, "127.0.0.1", 0)) {
            JsonNode t = get(s, "/api/trace?id=a", 200);
            assertThat(t.get("events").asInt()).isEqualTo(7);
            assertThat(t.get("problems").toString()).contains("trajectory/segments/000001.jsonl:2: malformed event",
                    "000001.jsonl:9: torn last line");
            assertThat(t.get("findings").get(0).get("seq").asInt()).isEqualTo(4);
            JsonNode gone = get(s, "/api/event?id=a&seq=2", 404);
            assertThat(gone.get("error").asText()).contains("event #2 of rollout 'a' could not be read", "000001.jsonl:2: malformed event");
            assertThat(get(s, "/api/event?id=a&seq=3", 200).get("diff").asText()).contains("conftest.py");
        }
    }

    @Test
    void aMissingBlobLeavesTheHeadTheEventKeptAndSaysWhichBlobIsMissing(@TempDir Path runs) throws Exception {
        Path a = RunsFixture.attempt(runs, "a", "calc", "2026-11-29T10:00:00Z", List.of());
        try (Stream<Path> blobs = Files.walk(a.resolve("trajectory/blobs"))) {
            for (Path b : blobs.filter(Files::isRegularFile).toList()) Files.delete(b);
        }
        try (ConsoleServer s = ConsoleServer.start(runs, "127.0.0.1", 0)) {
            JsonNode e = get(s, "/api/event?id=a&seq=2", 200);
            assertThat(e.get("output").asText()).startsWith("collected 4 items").doesNotContain("END-OF-OUTPUT");
            assertThat(e.get("problems").toString()).contains("field 'text': blob sha256:", "is missing from trajectory/blobs");
        }
    }

    @Test
    void anUnreadableResultIsAProblemOfTheListAndAnAgentsPlantedResultIsNoRollout(@TempDir Path runs) throws Exception {
        // an unreadable result.json (not JSON, too large) is listed with what its first fields say and why: never hidden
        RunsFixture.attempt(runs, "good", "calc", "2026-11-29T10:00:00Z", List.of());
        Path bad = Files.createDirectories(runs.resolve("bad"));
        Files.writeString(bad.resolve("result.json"), "{\"phase\": \"Hacked\",");
        Path link = Files.createDirectories(runs.resolve("linked"));
        Files.createSymbolicLink(link.resolve("result.json"), runs.resolve("good/result.json"));
        // the agent's workspace sits inside its attempt folder: a result.json it leaves there is not a rollout
        Path planted = Files.createDirectories(runs.resolve("good/sandbox/workspace/fake"));
        Files.writeString(planted.resolve("result.json"), "{\"rollout\":\"fake\",\"phase\":\"Succeeded\",\"reward\":1.0}");
        Files.createSymbolicLink(runs.resolve("outside"), Files.createTempDirectory("console-outside"));
        try (ConsoleServer s = ConsoleServer.start(runs, "127.0.0.1", 0)) {
            JsonNode list = get(s, "/api/rollouts", 200);
            assertThat(list.get("items")).extracting(i -> i.get("id").asText()).containsExactlyInAnyOrder("good", "bad");
            JsonNode hackedItem = get(s, "/api/rollouts?phase=Hacked", 200).get("items").get(0);
            assertThat(hackedItem.get("id").asText()).isEqualTo("bad");
            assertThat(hackedItem.get("message").asText()).contains("result.json not read in full", "not JSON");
            assertThat(list.get("problems").toString()).contains("rollout bad:", "bad/result.json: not JSON", "rollout linked:", "symbolic link");
            assertThat(get(s, "/api/rollout?id=good%2Fsandbox%2Fworkspace%2Ffake", 404).get("error").asText()).contains("no rollout");
        }
    }

    @Test
    void aHackedRolloutWhoseResultIsTooLargeKeepsItsFindingsAndTests(@TempDir Path runs) throws Exception {
        // host round 8, case 30: 90,000 FIFOs listed in verifierReport made result.json 48.8 MB; the Hacked run showed no finding
        Path big = Files.createDirectories(runs.resolve("fifos"));
        Files.writeString(big.resolve("result.json"), "{\"rollout\":\"fifos\",\"environment\":\"calc\",\"attempt\":0,\"phase\":\"Hacked\","
                + "\"reason\":\"RewardHackDetected\",\"reward\":0.0,\"tests\":{\"passed\":2,\"failed\":2,\"skipped\":0,\"total\":4,\"details\":[]},"
                + "\"hackFindings\":[{\"detector\":\"startup-hook-injection\",\"severity\":\"critical\",\"path\":\"conftest.py\","
                + "\"evidence\":\"added conftest.py\",\"step\":-1},{\"detector\":\"test-skip-injection\",\"severity\":\"critical\","
                + "\"path\":\"conftest.py\",\"evidence\":\"" + "e".repeat(10_000) + "\"}],"
                + "\"verifierReport\":{\"tamper\":{\"droppedFromGrading\":[\"" + "f".repeat(ResultFile.MAX_BYTES) + "\"]}}}");
        try (ConsoleServer s = ConsoleServer.start(runs, "127.0.0.1", 0)) {
            JsonNode item = get(s, "/api/rollouts?detector=startup-hook-injection", 200).get("items").get(0);
            assertThat(item.get("id").asText()).isEqualTo("fifos");
            assertThat(item.get("message").asText()).contains("result.json not read in full", "larger than");
            assertThat(item.toString()).contains("test-skip-injection", "\"total\":4").doesNotContain("e".repeat(5000));
        }
    }

    @Test
    void aRolloutWhoseResultIsTooLargeIsStillListedWithItsPhaseAndWhy(@TempDir Path runs) throws Exception {
        // hostred3 B1: a finding quoting a 17 MiB ref name made result.json 35 MB, and the Hacked rollout vanished from the lists
        Path big = Files.createDirectories(runs.resolve("big"));
        Files.writeString(big.resolve("result.json"), "{\"rollout\":\"big\",\"attempt\":0,\"phase\":\"Hacked\",\"reason\":\"RewardHackDetected\","
                + "\"reward\":0.0,\"hackFindings\":[{\"detector\":\"git\",\"evidence\":\"" + "r".repeat(ResultFile.MAX_BYTES + 1024) + "\"}]}");
        try (ConsoleServer s = ConsoleServer.start(runs, "127.0.0.1", 0)) {
            JsonNode hacked = get(s, "/api/rollouts?phase=Hacked", 200);
            assertThat(hacked.get("items")).extracting(i -> i.get("id").asText()).containsExactly("big");
            assertThat(hacked.get("items").get(0).get("message").asText()).contains("result.json not read in full", "larger than");
            JsonNode one = get(s, "/api/rollout?id=big", 200);
            assertThat(one.get("summary").get("phase").asText()).isEqualTo("Hacked");
            assertThat(one.get("problems").toString()).contains("larger than");
        }
    }

    @Test
    void aRolloutWithoutATrajectoryIsShownWithItsGradingAndSaysWhy(@TempDir Path runs) throws Exception {
        Path a = RunsFixture.attempt(runs, "old", "calc", "2026-11-29T10:00:00Z", List.of());
        try (Stream<Path> t = Files.walk(a.resolve("trajectory"))) {
            t.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
        try (ConsoleServer s = ConsoleServer.start(runs, "127.0.0.1", 0)) {
            JsonNode t = get(s, "/api/trace?id=old", 200);
            assertThat(t.get("present").asBoolean()).isFalse();
            assertThat(t.get("message").asText()).contains("no trajectory");
            assertThat(get(s, "/api/event?id=old&seq=1", 404).get("error").asText()).contains("has no trajectory");
            assertThat(get(s, "/api/rollout?id=old", 200).at("/result/tests/total").asInt()).isEqualTo(2);
            assertThat(get(s, "/api/rollouts", 200).at("/items/0/trajectory/present").asBoolean()).isFalse();
        }
    }
}
