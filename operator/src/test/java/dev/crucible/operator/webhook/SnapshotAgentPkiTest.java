package dev.crucible.operator.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.crucible.snapshot.client.AgentCallException;
import dev.crucible.snapshot.client.SnapshotAgentClient;
import dev.crucible.snapshot.client.tls.AgentClientTls;
import dev.crucible.snapshot.client.tls.PemFiles;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the operator issues for the snapshot agents: complete, split between its two Secrets, and working over mutual TLS. */
class SnapshotAgentPkiTest {

    static final String TOKEN = "operator-token-0123456789abcdef";
    static final Instant NOW = Instant.parse("2026-11-23T12:00:00Z");

    @TempDir
    Path tmp;

    @Test
    void issuedMaterialIsCompleteSplitAndKeepsTheHmacKeyAcrossReissue() throws Exception {
        Map<String, String> data = SnapshotAgentPki.issue(null, NOW, Duration.ofDays(365));
        assertThat(SnapshotAgentPki.renewalReason(data, NOW, Duration.ofDays(30))).isNull();
        assertThat(SnapshotAgentPki.renewalReason(data, NOW.plus(Duration.ofDays(340)), Duration.ofDays(30))).contains("expires");
        assertThat(SnapshotAgentPki.renewalReason(null, NOW, Duration.ofDays(30))).isNotNull();
        Map<String, String> agent = SnapshotAgentPki.agentData(data);
        assertThat(agent).containsOnlyKeys("ca.crt", "tls.crt", "tls.key", "hmac.key");
        X509Certificate client = PemCodec.certificates(SnapshotAgentPki.decode(data.get("client.crt"))).get(0);
        assertThat(client.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.2"); // clientAuth only
        Map<String, String> again = SnapshotAgentPki.issue(data, NOW.plus(Duration.ofDays(340)), Duration.ofDays(365));
        assertThat(again.get("hmac.key")).isEqualTo(data.get("hmac.key"));
        assertThat(again.get("ca.crt")).isNotEqualTo(data.get("ca.crt"));
    }

    @Test
    void theAgentAcceptsTheOperatorsClientAndRefusesAClientOfAnotherIssue() throws Exception {
        Map<String, String> data = SnapshotAgentPki.issue(null, Instant.now(), Duration.ofDays(30));
        Path agentDir = write(tmp.resolve("agent"), data, "ca.crt", "tls.crt", "tls.key", "hmac.key");
        Path opDir = write(tmp.resolve("operator"), data, "ca.crt", "client.crt", "client.key");
        Path otherDir = write(tmp.resolve("other"), SnapshotAgentPki.issue(null, Instant.now(), Duration.ofDays(30)),
                "ca.crt", "client.crt", "client.key");
        // The agent's TLS side as a JDK TLS socket with the agent's files (the agent itself needs the
        // Prometheus registry the operator does not ship; AgentTlsTest runs the real agent with the same formats).
        javax.net.ssl.SSLContext ctx = agentContext(agentDir);
        javax.net.ssl.SSLServerSocket server = (javax.net.ssl.SSLServerSocket) ctx.getServerSocketFactory()
                .createServerSocket(0, 8, java.net.InetAddress.getLoopbackAddress());
        server.setNeedClientAuth(true);
        Thread accept = new Thread(() -> {
            while (!server.isClosed()) {
                try (java.net.Socket c = server.accept()) {
                    var in = new java.io.BufferedReader(new java.io.InputStreamReader(c.getInputStream()));
                    String line;
                    while ((line = in.readLine()) != null && !line.isEmpty()) {
                        // request headers
                    }
                    c.getOutputStream().write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n[]"
                            .getBytes());
                } catch (java.io.IOException e) {
                    // a refused handshake, or the server closing
                }
            }
        });
        accept.setDaemon(true);
        accept.start();
        try {
            URI uri = URI.create("https://127.0.0.1:" + server.getLocalPort());
            AgentClientTls mine = new AgentClientTls(opDir.resolve("ca.crt"), opDir.resolve("client.crt"), opDir.resolve("client.key"),
                    SnapshotAgentPki.AGENT_NAME);
            assertThat(new SnapshotAgentClient(uri, TOKEN, Duration.ofSeconds(20), mine).list()).isEmpty();
            // another issue's client (and CA): neither side trusts the other
            AgentClientTls other = new AgentClientTls(otherDir.resolve("ca.crt"), otherDir.resolve("client.crt"),
                    otherDir.resolve("client.key"), SnapshotAgentPki.AGENT_NAME);
            assertThatThrownBy(() -> new SnapshotAgentClient(uri, TOKEN, Duration.ofSeconds(20), other).list())
                    .isInstanceOf(AgentCallException.class);
            AgentClientTls otherClientOurCa = new AgentClientTls(opDir.resolve("ca.crt"), otherDir.resolve("client.crt"),
                    otherDir.resolve("client.key"), SnapshotAgentPki.AGENT_NAME);
            assertThatThrownBy(() -> new SnapshotAgentClient(uri, TOKEN, Duration.ofSeconds(20), otherClientOurCa).list())
                    .isInstanceOf(AgentCallException.class);
            // the operator's client certificate cannot serve (clientAuth only), so it is no agent certificate
            assertThat(SnapshotAgentPki.decode(data.get("tls.crt"))).isNotEqualTo(SnapshotAgentPki.decode(data.get("client.crt")));
        } finally {
            server.close();
        }
    }

    private static javax.net.ssl.SSLContext agentContext(Path dir) throws Exception {
        java.security.KeyStore keys = java.security.KeyStore.getInstance("PKCS12");
        keys.load(null, null);
        keys.setKeyEntry("agent", PemFiles.privateKey(dir.resolve("tls.key")), new char[0],
                PemFiles.certificates(dir.resolve("tls.crt")).toArray(X509Certificate[]::new));
        javax.net.ssl.KeyManagerFactory kmf = javax.net.ssl.KeyManagerFactory.getInstance("PKIX");
        kmf.init(keys, new char[0]);
        java.security.KeyStore trust = java.security.KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", PemFiles.certificates(dir.resolve("ca.crt")).get(0));
        javax.net.ssl.TrustManagerFactory tmf = javax.net.ssl.TrustManagerFactory.getInstance("PKIX");
        tmf.init(trust);
        javax.net.ssl.SSLContext ctx = javax.net.ssl.SSLContext.getInstance("TLSv1.3");
        ctx.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        return ctx;
    }

    private static Path write(Path dir, Map<String, String> data, String... keys) throws Exception {
        Files.createDirectories(dir);
        for (String k : keys) {
            Files.writeString(dir.resolve(k), SnapshotAgentPki.decode(data.get(k)));
        }
        return dir;
    }
}
