package dev.crucible.tracestore;

import dev.crucible.tracestore.common.StoreSettings;
import static dev.crucible.tracestore.StoreHttp.events;
import static dev.crucible.tracestore.StoreHttp.rollout;
import static dev.crucible.tracestore.TwoTeamsCluster.A;
import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.tracestore.auth.KubeAuth;
import dev.crucible.tracestore.http.TraceStoreServer;
import dev.crucible.tracestore.store.TraceService;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Retention on the real API server tier: by size (the oldest ended rollout goes to make room; a write that cannot fit
 * is refused with 507 and removes nothing), by age (the sweep), and what is stored survives a restart of the store.
 */
class RetentionOnApiServerTest {

    /** One event of {@code kind} that is exactly {@code bytes} long. */
    static byte[] padded(String kind, int bytes) {
        String head = "\"kind\":\"" + kind + "\",\"data\":{\"phase\":\"Succeeded\",\"reward\":1.0,\"text\":\"";
        int base = events(1, head + "\"}").length;
        return events(1, head + "p".repeat(bytes - base) + "\"}");
    }

    @Test
    void sizeAndAgeRetentionAndARestart() throws Exception {
        TwoTeamsCluster k8s = TwoTeamsCluster.shared();
        for (int i = 1; i <= 4; i++) k8s.rollout(A, "ret-" + i, "env-ret", Map.of());
        Path dir = Files.createTempDirectory("trace-store-retention-");
        StoreSettings s = StoreSettings.defaults(dir).withPort(0).withRetention(3000, Duration.ofHours(1));
        MutableClock clock = new MutableClock(Instant.parse("2026-11-29T10:00:00Z"));
        String writer = k8s.writer(A);
        String alice = k8s.token(A, "alice", null);
        TraceService service = new TraceService(s, k8s.admin, clock);
        TraceStoreServer server = TraceStoreServer.start(s, service, new KubeAuth(k8s.admin, Duration.ofSeconds(1), s.writerServiceAccount(), s.writerAudience()));
        try {
            StoreHttp http = new StoreHttp(server.port());
            byte[] ended = padded("outcome", 1000);
            byte[] running = padded("output", 1000);
            assertThat(ended.length).isEqualTo(1000);
            ok(http.put(rollout(A, "ret-1") + "/segments/1", writer, ended));
            clock.advance(Duration.ofMinutes(1));
            ok(http.put(rollout(A, "ret-2") + "/segments/1", writer, ended));
            clock.advance(Duration.ofMinutes(1));
            ok(http.put(rollout(A, "ret-3") + "/segments/1", writer, running));
            clock.advance(Duration.ofMinutes(1));
            assertThat(service.used()).isEqualTo(3000);

            // Full: ret-1, the least recently written ended rollout, makes room for ret-4.
            ok(http.put(rollout(A, "ret-4") + "/segments/1", writer, running));
            assertThat(http.get(rollout(A, "ret-1") + "/segments/1", alice).status()).isEqualTo(404);
            assertThat(Files.exists(dir.resolve("rollouts/team-a/ret-1"))).isFalse();
            assertThat(http.get(rollout(A, "ret-2") + "/segments/1", alice).body()).isEqualTo(ended);
            assertThat(service.used()).isEqualTo(3000);

            // 2,000 more bytes for ret-3 cannot fit even without ret-2 (the only ended one): 507, and ret-2 stays.
            byte[] more = events(2, "\"kind\":\"output\",\"data\":{\"text\":\"" + "q".repeat(1950) + "\"}");
            StoreHttp.Reply r = http.put(rollout(A, "ret-3") + "/segments/1?offset=1000", writer, more);
            assertThat(r.status()).as(r.toString()).isEqualTo(507);
            assertThat(r.json().get("error").asText()).contains("the trace store is full").contains("retentionMaxBytes=3000");
            assertThat(http.get(rollout(A, "ret-2") + "/segments/1", alice).status()).isEqualTo(200);
            assertThat(http.get(rollout(A, "ret-3") + "/segments/1", alice).body()).isEqualTo(running);

            // A small write to ret-4 still needs room: ret-2 (ended) goes; ret-3 (running) is never removed for size.
            clock.advance(Duration.ofMinutes(58));
            ok(http.put(rollout(A, "ret-4") + "/segments/2", writer, events(2, "\"kind\":\"output\",\"data\":{}")));
            assertThat(http.get(rollout(A, "ret-2") + "/segments", alice).status()).isEqualTo(404);
            // Age: an hour on, the running ret-3, last written 63 minutes ago, goes; ret-4, written since, stays.
            clock.advance(Duration.ofMinutes(5));
            assertThat(service.sweep()).isEqualTo(1);
            assertThat(http.get(rollout(A, "ret-3") + "/segments", alice).status()).isEqualTo(404);
            assertThat(http.get(rollout(A, "ret-4") + "/segments", alice).json().get("segments")).hasSize(2);
        } finally {
            server.close();
            service.close();
        }
        // A restarted store finds its index and its accounting where it left them.
        TraceService again = new TraceService(s, k8s.admin, clock);
        try {
            assertThat(again.used()).isEqualTo(1000 + events(2, "\"kind\":\"output\",\"data\":{}").length);
            assertThat(again.row(A, "ret-4").environment()).isEqualTo("env-ret");
            assertThat(again.files().segments(A, "ret-4")).hasSize(2);
        } finally {
            again.close();
        }
    }

    static void ok(StoreHttp.Reply r) {
        assertThat(r.status()).as(r.toString()).isEqualTo(200);
    }
}
