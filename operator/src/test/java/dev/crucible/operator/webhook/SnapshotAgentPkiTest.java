package dev.crucible.operator.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.crucible.snapshot.agent.AgentServer;
import dev.crucible.snapshot.agent.BearerTokenAuth;
import dev.crucible.snapshot.client.AgentCallException;
import dev.crucible.snapshot.client.SnapshotAgentClient;
import dev.crucible.snapshot.engine.EngineBuilder;
import dev.crucible.snapshot.engine.SnapshotEngine;
import dev.crucible.snapshot.store.ManifestKey;
import dev.crucible.snapshot.tls.AgentClientTls;
import dev.crucible.snapshot.tls.AgentServerTls;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the operator issues for the snapshot agents works with the agent's own TLS server and client. */
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
        try (SnapshotEngine engine = new EngineBuilder().store(tmp.resolve("store"))
                .manifestKey(ManifestKey.fromFile(agentDir.resolve("hmac.key"))).build()) {
            AgentServer server = new AgentServer(engine, new BearerTokenAuth(TOKEN));
            try {
                int port = server.start("127.0.0.1", 0, new AgentServerTls(agentDir.resolve("tls.crt"), agentDir.resolve("tls.key"),
                        agentDir.resolve("ca.crt")));
                URI uri = URI.create("https://127.0.0.1:" + port);
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
            } finally {
                server.close();
            }
        }
    }

    private static Path write(Path dir, Map<String, String> data, String... keys) throws Exception {
        Files.createDirectories(dir);
        for (String k : keys) {
            Files.writeString(dir.resolve(k), SnapshotAgentPki.decode(data.get(k)));
        }
        return dir;
    }
}
