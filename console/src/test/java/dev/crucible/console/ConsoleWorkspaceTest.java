package dev.crucible.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.console.http.ConsoleServer;
import dev.crucible.trajectory.EventKind;
import dev.crucible.trajectory.RecorderLimits;
import dev.crucible.trajectory.TrajectoryRecorder;
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
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The workspace at a step, over real HTTP: a snapshot store holding a workspace.tar written by GNU tar as the snapshot
 * engine writes it (--sparse --numeric-owner), of a hostile workspace (a link out of it, a FIFO, names with escape
 * sequences and a direction override, a name past tar's 100 bytes, binary and oversized files, a hard link), and
 * trajectories recorded by the real recorder with snapshot events before and after the steps asked about.
 */
class ConsoleWorkspaceTest {
    @TempDir
    static Path tmp;
    static ConsoleServer server;
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final ObjectMapper JSON = new ObjectMapper();
    static final String ESC_NAME = "red\u001b[31mname.txt";
    static final String BIDI_NAME = "safe\u202etxt.py";
    static final String LONG_NAME = "d".repeat(60) + "/" + "n".repeat(120) + ".txt";

    @BeforeAll
    static void start() throws Exception {
        Path runs = Files.createDirectories(tmp.resolve("runs"));
        Path store = tmp.resolve("snapshots");
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Files.createDirectories(ws.resolve("sandbox/tests"));
        Files.writeString(ws.resolve("sandbox/conftest.py"), "def pytest_runtest_makereport(item, call):\n    rep.outcome = 'passed'\u001b[2J\n");
        Files.writeString(ws.resolve("sandbox/tests/test_app.py"), "def test_ok():\n    assert True\n");
        Files.createSymbolicLink(ws.resolve("sandbox/passwd"), Path.of("/etc/passwd"));
        run("mkfifo", ws.resolve("sandbox/pipe").toString());
        Files.writeString(ws.resolve("sandbox").resolve(ESC_NAME), "x\n");
        Files.writeString(ws.resolve("sandbox").resolve(BIDI_NAME), "y\n");
        Files.createDirectories(ws.resolve("sandbox").resolve(LONG_NAME).getParent());
        Files.writeString(ws.resolve("sandbox").resolve(LONG_NAME), "long\n");
        Files.write(ws.resolve("sandbox/blob.bin"), new byte[] {0x7f, 'E', 'L', 'F', 0, 0, 1, 2});
        Files.writeString(ws.resolve("sandbox/huge.log"), "line\n".repeat(200_000)); // 1,000,000 bytes
        Files.createLink(ws.resolve("sandbox/hard.py"), ws.resolve("sandbox/tests/test_app.py"));
        Path s1 = Files.createDirectories(store.resolve("snapshots/run-a0-abc123-20261130-100000-000"));
        run("tar", "--create", "--file", s1.resolve("workspace.tar").toString(), "--directory", ws.toString(), "--numeric-owner",
                "--sparse", "--anchored", "--no-wildcards", ".");
        Files.writeString(s1.resolve("manifest.json"), "{\"id\":\"run-a0-abc123-20261130-100000-000\",\"state\":\"COMPLETE\",\"workspaceSha256\":\"x\"}");

        Path a = RunsFixture.attempt(runs, "snap/a", "calc", "2026-11-30T10:00:00Z", List.of());
        rewriteTrajectory(a, List.of(
                Map.of("op", "taken", "id", "run-a0-abc123-20261130-100000-000", "trigger", "every 30s"),
                Map.of("op", "taken", "id", "run-a0-abc123-20261130-100030-000", "trigger", "every 30s"))); // pruned: not in the store
        RunsFixture.attempt(runs, "plain/b", "calc", "2026-11-30T09:00:00Z", List.of());
        server = ConsoleServer.start(runs, "127.0.0.1", 0, false, store);
    }

    /** The fixture's trajectory with a snapshot event after event 1 (the agent's start) and another after its file change. */
    static void rewriteTrajectory(Path attempt, List<Map<String, Object>> snaps) throws Exception {
        Path traj = attempt.resolve("trajectory");
        run("rm", "-rf", traj.toString());
        try (TrajectoryRecorder rec = TrajectoryRecorder.open(traj, RecorderLimits.defaults())) {
            long proc = rec.append(EventKind.PROCESS_START, null, null, Map.of("pid", 1, "command", "sh agent.sh", "cwd", "/workspace")); // #1
            rec.append(EventKind.SNAPSHOT, null, null, snaps.get(0)); // #2
            rec.append(EventKind.FILE, null, proc, Map.of("path", "conftest.py", "op", "added", "type", "file", "size", 80, "diff", "+x\n")); // #3
            rec.append(EventKind.SNAPSHOT, null, null, snaps.get(1)); // #4
            rec.append(EventKind.PROCESS_END, null, proc, Map.of("pid", 1, "exitStatus", 0, "durationMs", 5)); // #5
        }
    }

    static void run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(String.join(" ", cmd) + ": " + out).isZero();
    }

    @AfterAll
    static void stop() {
        if (server != null) server.close();
    }

    static HttpResponse<String> get(String q) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(server.url() + "api/workspace?" + q)).build(), HttpResponse.BodyHandlers.ofString());
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

    static JsonNode entry(JsonNode answer, String path) {
        for (JsonNode e : answer.get("entries")) if (e.get("path").asText().equals(path)) return e;
        throw new AssertionError(path + " not listed in " + answer.get("entries"));
    }

    @Test
    void aStepAfterASnapshotListsTheWorkspaceAsThatSnapshotHoldsIt() throws Exception {
        JsonNode root = ok("id=snap%2Fa&seq=3");
        assertThat(root.at("/snapshot/id").asText()).isEqualTo("run-a0-abc123-20261130-100000-000");
        assertThat(root.at("/snapshot/seq").asLong()).isEqualTo(2);
        assertThat(entry(root, "sandbox").get("type").asText()).isEqualTo("dir");
        JsonNode box = ok("id=snap%2Fa&seq=3&path=sandbox");
        List<String> names = new ArrayList<>();
        box.get("entries").forEach(e -> names.add(e.get("name").asText()));
        assertThat(names).contains("tests", "conftest.py", "passwd", "pipe", "blob.bin", "huge.log", "hard.py", ESC_NAME, BIDI_NAME);
        assertThat(names.get(0)).isEqualTo("d".repeat(60)); // folders first
        JsonNode link = entry(box, "sandbox/passwd");
        assertThat(link.get("type").asText()).isEqualTo("symlink");
        assertThat(link.get("link").asText()).isEqualTo("/etc/passwd");
        assertThat(entry(box, "sandbox/pipe").get("type").asText()).isEqualTo("fifo");
        // tar archives the first of two hard links it meets as the file, the other as a link to it (readdir's order)
        String hard = entry(box, "sandbox/hard.py").get("type").asText();
        assertThat(hard).isIn("hardlink", "file");
        if (hard.equals("file")) assertThat(entry(ok("id=snap%2Fa&seq=3&path=sandbox%2Ftests"), "sandbox/tests/test_app.py").get("type").asText()).isEqualTo("hardlink");
        // hostile names: the raw name for the link, the shown one with the escape and the override made visible
        assertThat(entry(box, "sandbox/" + ESC_NAME).get("nameShown").asText()).isEqualTo("red\\x1b[31mname.txt");
        assertThat(entry(box, "sandbox/" + BIDI_NAME).get("nameShown").asText()).isEqualTo("safe\\u{202e}txt.py");
        // a name past the header's 100 bytes (GNU's long name member)
        JsonNode deep = ok("id=snap%2Fa&seq=3&path=" + enc("sandbox/" + "d".repeat(60)));
        assertThat(deep.at("/entries/0/path").asText()).isEqualTo("sandbox/" + LONG_NAME);
        // the pruned snapshot after #3 is skipped for a later step: the one before it still covers it
        assertThat(ok("id=snap%2Fa&seq=5").at("/snapshot/seq").asLong()).isEqualTo(2);
        assertThat(ok("id=snap%2Fa&seq=5").at("/snapshots")).hasSize(2);
    }

    @Test
    void aFileShowsItsHeadEscapedAndNeverFollowsALinkOrOpensAFifo() throws Exception {
        JsonNode f = ok("id=snap%2Fa&seq=2&path=" + enc("sandbox/conftest.py")).get("file");
        assertThat(f.get("text").asText()).contains("rep.outcome = 'passed'\\x1b[2J\n").doesNotContain("\u001b");
        assertThat(f.get("truncated").asBoolean()).isFalse();
        JsonNode huge = ok("id=snap%2Fa&seq=3&path=" + enc("sandbox/huge.log")).get("file");
        assertThat(huge.get("size").asLong()).isEqualTo(1_000_000);
        assertThat(huge.get("shown").asInt()).isEqualTo(256 << 10);
        assertThat(huge.get("truncated").asBoolean()).isTrue();
        assertThat(huge.get("note").asText()).contains("the first 262144 of 1000000 bytes");
        JsonNode bin = ok("id=snap%2Fa&seq=3&path=" + enc("sandbox/blob.bin")).get("file");
        assertThat(bin.get("binary").asBoolean()).isTrue();
        assertThat(bin.get("text").isNull()).isTrue();
        assertThat(bin.get("hex").asText()).startsWith("00000000  7f 45 4c 46 00 00 01 02");
        JsonNode link = ok("id=snap%2Fa&seq=3&path=" + enc("sandbox/passwd")).get("file");
        assertThat(link.get("text").isNull()).isTrue();
        assertThat(link.get("note").asText()).contains("symbolic link to /etc/passwd (not followed)");
        assertThat(ok("id=snap%2Fa&seq=3&path=" + enc("sandbox/pipe")).at("/file/note").asText()).contains("FIFO");
        JsonNode hard = ok("id=snap%2Fa&seq=3&path=" + enc("sandbox/hard.py")).get("file");
        if ("hardlink".equals(hard.get("type").asText())) assertThat(hard.get("note").asText()).contains("hard link to sandbox/tests/test_app.py");
        else assertThat(ok("id=snap%2Fa&seq=3&path=" + enc("sandbox/tests/test_app.py")).at("/file/note").asText()).contains("hard link to sandbox/hard.py");
    }

    @Test
    void noSnapshotAtOrBeforeTheStepAndBadInputAreClearMessages() throws Exception {
        assertThat(error("id=snap%2Fa&seq=1", 404)).contains("no snapshot covers step #1", "first snapshot is at #2");
        assertThat(error("id=plain%2Fb&seq=2", 404)).contains("no snapshot covers step #2", "records no snapshot");
        assertThat(error("id=snap%2Fa&seq=99", 404)).contains("no event #99 in rollout snap/a (it has ");
        assertThat(error("id=snap%2Fa&seq=3&path=" + enc("../../etc/passwd"), 404)).contains("no ../../etc/passwd in snapshot");
        assertThat(error("id=snap%2Fa&seq=3&path=" + enc("sandbox/nope\u001b"), 404)).contains("sandbox/nope\\x1b").doesNotContain("\u001b");
        assertThat(error("id=nope&seq=3", 404)).contains("no rollout 'nope'");
        assertThat(error("id=snap%2Fa", 400)).contains("seq");
        assertThat(error("id=snap%2Fa&seq=x", 400)).contains("seq");
    }
}
