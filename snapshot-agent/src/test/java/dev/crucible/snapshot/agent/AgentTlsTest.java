package dev.crucible.snapshot.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.crucible.snapshot.client.AgentCallException;
import dev.crucible.snapshot.client.SnapshotAgentClient;
import dev.crucible.snapshot.engine.EngineBuilder;
import dev.crucible.snapshot.engine.SnapshotEngine;
import dev.crucible.snapshot.store.ManifestKey;
import dev.crucible.snapshot.client.tls.AgentClientTls;
import dev.crucible.snapshot.tls.AgentServerTls;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent over mutual TLS: plain HTTP, TLS without a client certificate and a certificate from
 * another CA never reach the API; the operator's client (CA-pinned, client certificate, token)
 * does, and still needs the token. Certificates come from openssl, shaped as the operator issues them.
 */
class AgentTlsTest {

    static final String TOKEN = "operator-token-0123456789abcdef";

    @TempDir
    static Path tmp;
    static SnapshotEngine engine;
    static AgentServer server;
    static int port;

    @BeforeAll
    static void start() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/openssl")) || Files.isExecutable(Path.of("/bin/openssl")), "needs openssl");
        Path pki = Files.createDirectories(tmp.resolve("pki"));
        sh(pki, """
                set -e
                key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
                ca() { key $1.key; openssl req -x509 -new -key $1.key -subj /CN=$1 -days 2 -out $1.crt \
                       -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign; }
                leaf() { key $1.key; openssl req -new -key $1.key -subj /CN=$3 -out $1.csr
                         printf "$4" > $1.ext
                         openssl x509 -req -in $1.csr -CA $2.crt -CAkey $2.key -CAcreateserial -days 2 -out $1.crt -extfile $1.ext 2>/dev/null; }
                ca agent-ca
                ca rogue-ca
                leaf server agent-ca crucible-snapshot-agent 'subjectAltName=DNS:crucible-snapshot-agent\\nextendedKeyUsage=serverAuth\\n'
                leaf client agent-ca crucible-operator 'extendedKeyUsage=clientAuth\\n'
                leaf rogue rogue-ca crucible-operator 'extendedKeyUsage=clientAuth\\n'
                """);
        engine = new EngineBuilder().store(tmp.resolve("store"))
                .manifestKey(ManifestKey.of("test-key-0123456789abcdef0123456789".getBytes())).build();
        server = new AgentServer(engine, new BearerTokenAuth(TOKEN));
        port = server.start("127.0.0.1", 0, new AgentServerTls(pki.resolve("server.crt"), pki.resolve("server.key"),
                pki.resolve("agent-ca.crt")));
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
            engine.close();
        }
    }

    private static void sh(Path dir, String script) throws Exception {
        Process p = new ProcessBuilder("sh", "-c", script).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as(out).isZero();
    }

    private static AgentClientTls tls(String client) {
        Path pki = tmp.resolve("pki");
        return new AgentClientTls(pki.resolve("agent-ca.crt"), pki.resolve(client + ".crt"), pki.resolve(client + ".key"),
                AgentClientTls.DEFAULT_SERVER_NAME);
    }

    @Test
    void theOperatorsClientGetsInAndStillNeedsTheToken() {
        URI uri = URI.create("https://127.0.0.1:" + port);
        assertThat(new SnapshotAgentClient(uri, TOKEN, Duration.ofSeconds(20), tls("client")).list()).isEmpty();
        assertThatThrownBy(() -> new SnapshotAgentClient(uri, TOKEN + "x", Duration.ofSeconds(20), tls("client")).list())
                .isInstanceOf(AgentCallException.class).hasMessageContaining("401");
    }

    @Test
    void plainHttpIsRefused() {
        HttpRequest r = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/snapshots"))
                .header("Authorization", "Bearer " + TOKEN).timeout(Duration.ofSeconds(10)).build();
        assertThatThrownBy(() -> HttpClient.newHttpClient().send(r, HttpResponse.BodyHandlers.ofString()))
                .isInstanceOf(IOException.class);
    }

    @Test
    void tlsWithoutAClientCertificateOrWithAnotherCasIsRefused() throws Exception {
        // trusts the agent CA but presents no certificate
        Path pki = tmp.resolve("pki");
        java.security.KeyStore trust = java.security.KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", dev.crucible.snapshot.client.tls.PemFiles.certificates(pki.resolve("agent-ca.crt")).get(0));
        javax.net.ssl.TrustManagerFactory tmf = javax.net.ssl.TrustManagerFactory.getInstance("PKIX");
        tmf.init(trust);
        javax.net.ssl.SSLContext noCert = javax.net.ssl.SSLContext.getInstance("TLS");
        noCert.init(null, tmf.getTrustManagers(), null);
        String outcome;
        try (javax.net.ssl.SSLSocket socket = (javax.net.ssl.SSLSocket) noCert.getSocketFactory().createSocket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            socket.startHandshake();
            socket.getOutputStream().write("GET /healthz HTTP/1.1\r\nHost: agent\r\n\r\n".getBytes());
            socket.getOutputStream().flush();
            outcome = socket.getInputStream().read() < 0 ? "closed" : "answered";
        } catch (IOException e) {
            outcome = "refused";
        }
        assertThat(outcome).as("TLS without a client certificate").isIn("closed", "refused");

        URI uri = URI.create("https://127.0.0.1:" + port);
        assertThatThrownBy(() -> new SnapshotAgentClient(uri, TOKEN, Duration.ofSeconds(20), tls("rogue")).list())
                .isInstanceOf(AgentCallException.class);
    }

    @Test
    void plaintextIsOnlyAllowedOnLoopback() {
        AgentServer plain = new AgentServer(engine, new BearerTokenAuth(TOKEN));
        try {
            assertThatThrownBy(() -> plain.start("0.0.0.0", 0)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("plaintext is allowed on 127.0.0.1/::1 only");
        } finally {
            plain.close();
        }
    }
}
