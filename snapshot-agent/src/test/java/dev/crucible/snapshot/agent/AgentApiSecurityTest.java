package dev.crucible.snapshot.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.snapshot.engine.EngineBuilder;
import dev.crucible.snapshot.engine.SnapshotEngine;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The privileged API over a real socket: only the token holder gets in, and no path leaves the store. */
class AgentApiSecurityTest {

    static final String TOKEN = "operator-token-0123456789abcdef";
    static SnapshotEngine engine;
    static AgentServer server;
    static String base;
    static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    static Path tmp;

    @BeforeAll
    static void start() throws Exception {
        Path tokenFile = Files.writeString(tmp.resolve("token"), TOKEN + "\n");
        Files.createDirectories(tmp.resolve("workspaces"));
        engine = new EngineBuilder().store(tmp.resolve("store")).workspaceRoot(tmp.resolve("workspaces")).build();
        server = new AgentServer(engine, BearerTokenAuth.fromFile(tokenFile));
        base = "http://127.0.0.1:" + server.start("127.0.0.1", 0);
        Files.writeString(tmp.resolve("secret.txt"), "not for callers");
    }

    @AfterAll
    static void stop() {
        server.close();
        engine.close();
    }

    static HttpResponse<String> send(String method, String path, String body, String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void everyV1CallNeedsTheOperatorToken() throws Exception {
        for (String[] call : new String[][] {{"GET", "/v1/snapshots"}, {"POST", "/v1/freeze"}, {"POST", "/v1/thaw"},
                {"POST", "/v1/dump/prepare"}, {"POST", "/v1/dump/dump"}, {"POST", "/v1/dump/commit"},
                {"POST", "/v1/dump/abort"}, {"POST", "/v1/dump"}, {"POST", "/v1/restore"},
                {"DELETE", "/v1/snapshots/x"}, {"POST", "/v1/gc"}}) {
            HttpResponse<String> none = send(call[0], call[1], "{}", null);
            HttpResponse<String> wrong = send(call[0], call[1], "{}", TOKEN + "x");
            assertThat(none.statusCode()).as(call[1]).isEqualTo(401);
            assertThat(wrong.statusCode()).as(call[1]).isEqualTo(401);
            assertThat(none.headers().firstValue("WWW-Authenticate")).isPresent();
        }
        assertThat(send("GET", "/v1/snapshots", null, TOKEN).statusCode()).isEqualTo(200);
        assertThat(send("GET", "/healthz", null, null).statusCode()).isEqualTo(200);
        assertThat(send("GET", "/metrics", null, null).body()).contains("crucible_snapshot_frozen_trees");
    }

    @Test
    void pathTraversalIsRefusedEverywhere() throws Exception {
        assertThat(send("GET", "/v1/snapshots/..%2F..%2Fsecret.txt", null, TOKEN).statusCode()).isEqualTo(400);
        assertThat(send("DELETE", "/v1/snapshots/..%2Fstore", null, TOKEN).statusCode()).isEqualTo(400);
        HttpResponse<String> restore = send("POST", "/v1/restore", "{\"snapshotId\":\"../../secret.txt\"}", TOKEN);
        assertThat(restore.statusCode()).isEqualTo(400);
        assertThat(restore.body()).contains("snapshotId");
        HttpResponse<String> prep = send("POST", "/v1/dump/prepare",
                "{\"snapshotId\":\"s1\",\"target\":{\"pid\":" + ProcessHandle.current().pid() + "},\"workspace\":\"" + tmp
                        + "/workspaces/../secret.txt\"}", TOKEN);
        assertThat(prep.statusCode()).as(prep.body()).isEqualTo(403);
        assertThat(prep.body()).contains("resolves outside");
        HttpResponse<String> cg = send("POST", "/v1/freeze", "{\"target\":{\"cgroupPath\":\"../../../etc\"}}", TOKEN);
        assertThat(cg.statusCode()).as(cg.body()).isEqualTo(403);
        assertThat(Files.readString(tmp.resolve("secret.txt"))).isEqualTo("not for callers");
        assertThat(Files.list(tmp.resolve("store/snapshots"))).isEmpty();
    }

    @Test
    void badInputNamesTheField() throws Exception {
        HttpResponse<String> r = send("POST", "/v1/dump/prepare", "{\"snapshotId\":\"s2\",\"target\":{\"pid\":\"abc\"}}", TOKEN);
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("target.pid");
        r = send("POST", "/v1/dump/prepare", "{\"snapshotId\":\"s2\",\"target\":{},\"bogus\":1}", TOKEN);
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("bogus");
        r = send("POST", "/v1/dump/commit", "{\"snapshotId\":\"nope\",\"action\":\"thaw\"}", TOKEN);
        assertThat(r.statusCode()).isEqualTo(409);
        r = send("POST", "/v1/thaw", "{}", TOKEN);
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("freezeId is required");
    }
}
