package dev.crucible.cli.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.crucible.verifier.sandbox.Box;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code crucible verify --find-offline --write}: the validation run, with real node --test in the real
 * grading sandbox (no network): the test that resolves a name is found, written with its reason, and the
 * environment then grades its own task commit at reward 1; a test failing for another reason still counts.
 */
class FindOfflineTest {
    @TempDir
    Path dir;

    static final String MANIFEST = """
            apiVersion: crucible.dev/v1alpha1
            kind: RLEnvironment
            metadata:
              name: offline
            spec:
              workspace:
                path: ./workspace
              verifier:
                type: test-suite   # node --test, recognised from the command
                command: node --test
            """;

    @Test
    void offlineOnlyFailureIsWrittenAndTheTaskCommitThenGradesOne() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/node")), "node is not installed at /usr/bin/node: this test needs a real node");
        assumeTrue(Box.availability().ok(), "bubblewrap cannot run here (" + Box.availability().problem() + "): the validation run grades in the grading sandbox");
        Files.createDirectories(dir.resolve("workspace/test"));
        Files.writeString(dir.resolve("workspace/package.json"), "{\"name\":\"fx\",\"version\":\"1.0.0\"}\n");
        Files.writeString(dir.resolve("workspace/test/a.test.js"), """
                const test = require('node:test');
                const assert = require('node:assert');
                test('adds', () => { assert.strictEqual(1 + 1, 2); });
                test('fetches', async () => { await require('node:dns').promises.lookup('example.com'); });
                """);
        Path manifest = dir.resolve("env.yaml");
        Files.writeString(manifest, MANIFEST);

        VerifyCommandTest.Run before = VerifyCommandTest.run("-f", manifest.toString(), "--workspace", dir.resolve("workspace").toString());
        assertThat(new ObjectMapper().readTree(before.out()).get("reward").asDouble()).as(before.out()).isEqualTo(0.0);

        VerifyCommandTest.Run found = VerifyCommandTest.run("-f", manifest.toString(), "--find-offline", "--write");
        assertThat(found.code()).as(found.err()).isZero();
        assertThat(found.out()).contains("offline-only  fetches  -- fails at the task commit without network: ").contains("getaddrinfo");
        assertThat(Files.readString(manifest)).contains("    excludedTests:").contains("id: \"fetches\"").contains("# node --test, recognised");

        VerifyCommandTest.Run after = VerifyCommandTest.run("-f", manifest.toString(), "--workspace", dir.resolve("workspace").toString());
        JsonNode j = new ObjectMapper().readTree(after.out());
        assertThat(j.get("reward").asDouble()).as(after.out()).isEqualTo(1.0);
        assertThat(j.at("/details/excluded/0/reason").asText()).contains("getaddrinfo");

        // a failure that is not the network's is listed and keeps counting
        Files.writeString(dir.resolve("workspace/test/b.test.js"),
                "require('node:test')('breaks', () => { throw new Error('connection to the database lost'); });\n");
        VerifyCommandTest.Run again = VerifyCommandTest.run("-f", manifest.toString(), "--find-offline");
        assertThat(again.out()).contains("fails-at-head breaks").doesNotContain("offline-only  breaks");
        VerifyCommandTest.Run again2 = VerifyCommandTest.run("-f", manifest.toString(), "--find-offline", "--write");
        assertThat(again2.code()).isEqualTo(VerifyCommand.BAD_INPUT);
        assertThat(again2.err()).contains("excludedTests is already there");
    }

    /**
     * A test that catches the network's error and asserts on what it got fails with a message that names no
     * network: the same grading with the host's network (a server on this machine's loopback, which the
     * offline box cannot reach) passes it, so it is offline-only; a plain failure still counts.
     */
    @Test
    void aFailureThatNamesNoNetworkIsOfflineOnlyWhenTheNetworkedRunPassesIt() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/node")), "node is not installed at /usr/bin/node: this test needs a real node");
        assumeTrue(Box.availability().ok(), "bubblewrap cannot run here (" + Box.availability().problem() + "): the validation run grades in the grading sandbox");
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", x -> {
            byte[] b = "hello".getBytes(java.nio.charset.StandardCharsets.UTF_8);
            x.sendResponseHeaders(200, b.length);
            x.getResponseBody().write(b);
            x.close();
        });
        server.start();
        try {
            Files.createDirectories(dir.resolve("workspace/test"));
            Files.writeString(dir.resolve("workspace/package.json"), "{\"name\":\"fx\",\"version\":\"1.0.0\"}\n");
            Files.writeString(dir.resolve("workspace/test/a.test.js"), """
                    const test = require('node:test');
                    const assert = require('node:assert');
                    test('greets', async () => {
                      let body = null;
                      try { body = await (await fetch('http://127.0.0.1:PORT/')).text(); } catch (e) { }
                      assert.strictEqual(body, 'hello');
                    });
                    test('breaks', () => { assert.strictEqual(1 + 1, 3); });
                    """.replace("PORT", Integer.toString(server.getAddress().getPort())));
            Path manifest = dir.resolve("env.yaml");
            Files.writeString(manifest, MANIFEST);
            VerifyCommandTest.Run found = VerifyCommandTest.run("-f", manifest.toString(), "--find-offline");
            assertThat(found.code()).as(found.err()).isZero();
            assertThat(found.out()).contains("the same run with the network: 2 tests")
                    .contains("offline-only  greets  -- fails at the task commit without network and passes with it")
                    .contains("fails-at-head breaks").doesNotContain("offline-only  breaks");
        } finally {
            server.stop(0);
        }
    }
}
