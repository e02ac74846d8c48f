package dev.crucible.snapshot.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.crucible.snapshot.HostAssumptions;
import dev.crucible.snapshot.agent.AgentServer;
import dev.crucible.snapshot.agent.BearerTokenAuth;
import dev.crucible.snapshot.client.api.CommitAction;
import dev.crucible.snapshot.engine.EngineBuilder;
import dev.crucible.snapshot.client.api.RestoreRequest;
import dev.crucible.snapshot.engine.SnapshotEngine;
import dev.crucible.snapshot.client.api.SnapshotRequest;
import dev.crucible.snapshot.client.store.SnapshotId;
import dev.crucible.snapshot.client.store.SnapshotState;
import dev.crucible.snapshot.client.api.TargetSpec;
import dev.crucible.snapshot.workload.MemoryWorkload;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two agents ("nodes"), three members: prepare all → dump all → commit all, or abort all. */
class TwoPhaseSnapshotTest {

    static final String TOKEN = "operator-token-0123456789abcdef";

    @TempDir
    Path tmp;

    private record Node(SnapshotEngine engine, AgentServer server, SnapshotAgentClient client) implements AutoCloseable {
        static Node start(Path store) {
            SnapshotEngine e = new EngineBuilder().store(store).build();
            AgentServer s = new AgentServer(e, new BearerTokenAuth(TOKEN));
            int port = s.start("127.0.0.1", 0);
            return new Node(e, s, new SnapshotAgentClient(URI.create("http://127.0.0.1:" + port), TOKEN, Duration.ofMinutes(2)));
        }

        @Override
        public void close() {
            server.close();
            engine.close();
        }
    }

    private static void assertRuns(MemoryWorkload w) {
        long c = w.status().count();
        await().atMost(Duration.ofSeconds(5)).until(() -> w.status().count() > c);
    }

    @Test
    void allMembersSnapshotConsistentlyAndRestore() throws Exception {
        HostAssumptions.assumeCriu();
        try (Node a = Node.start(tmp.resolve("node-a")); Node b = Node.start(tmp.resolve("node-b"));
             // separate working directories, as separate rollouts have: their dumps then run in parallel
             MemoryWorkload w1 = MemoryWorkload.start(32, 16, 10, 0, Files.createDirectories(tmp.resolve("w1")));
             MemoryWorkload w2 = MemoryWorkload.start(32, 16, 10, 0, Files.createDirectories(tmp.resolve("w2")));
             MemoryWorkload w3 = MemoryWorkload.start(64, 16, 10, 0, Files.createDirectories(tmp.resolve("w3")))) {
            List<TwoPhaseSnapshot.Member> members = List.of(
                    new TwoPhaseSnapshot.Member("trainer-0", a.client(), SnapshotRequest.of("ro-1-trainer-0", TargetSpec.ofPid(w1.pid()))),
                    new TwoPhaseSnapshot.Member("env-0", a.client(), SnapshotRequest.of("ro-1-env-0", TargetSpec.ofPid(w2.pid()))),
                    new TwoPhaseSnapshot.Member("env-1", b.client(), SnapshotRequest.of("ro-1-env-1", TargetSpec.ofPid(w3.pid()))));

            TwoPhaseSnapshot.Result r = new TwoPhaseSnapshot(Duration.ofMinutes(2)).run(members, CommitAction.THAW);

            assertThat(r.members()).hasSize(3).allSatisfy(m -> assertThat(m.imageBytes()).isPositive());
            assertThat(a.engine().store().require(SnapshotId.of("ro-1-env-0")).state).isEqualTo(SnapshotState.COMPLETE);
            assertThat(b.engine().store().require(SnapshotId.of("ro-1-env-1")).state).isEqualTo(SnapshotState.COMPLETE);
            System.out.printf("two-phase: freeze_window_ms=%d coordination_overhead_ms=%d wall_ms=%d members=%s%n",
                    r.freezeWindowMs(), r.coordinationOverheadMs(), r.wallMs(), r.members());
            assertRuns(w1);
            assertRuns(w2);
            assertRuns(w3);
            long pid = b.client().restore(RestoreRequest.of("ro-1-env-1")).pid();
            try {
                await().atMost(Duration.ofSeconds(5)).until(() -> MemoryWorkload.status(pid) != null);
            } finally {
                MemoryWorkload.kill(pid);
            }
        }
    }

    @Test
    void oneFailingMemberAbortsAllAndThawsTheOthers() throws Exception {
        HostAssumptions.assumeCriu();
        try (Node a = Node.start(tmp.resolve("node-a")); Node b = Node.start(tmp.resolve("node-b"));
             MemoryWorkload w1 = MemoryWorkload.start(16, 0, 10, 0)) {
            List<TwoPhaseSnapshot.Member> members = List.of(
                    new TwoPhaseSnapshot.Member("ok", a.client(), SnapshotRequest.of("ro-2-ok", TargetSpec.ofPid(w1.pid()))),
                    new TwoPhaseSnapshot.Member("gone", b.client(), SnapshotRequest.of("ro-2-gone", TargetSpec.ofPid(4_000_000L))));
            assertThatThrownBy(() -> new TwoPhaseSnapshot(Duration.ofMinutes(1)).run(members, CommitAction.THAW))
                    .isInstanceOf(TwoPhaseSnapshot.Failed.class).hasMessageContaining("prepare failed")
                    .hasMessageContaining("4000000");
            assertRuns(w1);
            await().atMost(Duration.ofSeconds(5)).until(() ->
                    a.engine().store().require(SnapshotId.of("ro-2-ok")).state == SnapshotState.FAILED);
            assertThat(a.engine().inFlight()).isEmpty();
        }
    }

    @Test
    void theTimeoutBoundsTheWholeProtocolAndThawsOnExpiry() throws Exception {
        HostAssumptions.assumeCriu();
        try (Node a = Node.start(tmp.resolve("node-a"));
             MemoryWorkload w1 = MemoryWorkload.start(64, 0, 10, 0)) {
            List<TwoPhaseSnapshot.Member> members = List.of(
                    new TwoPhaseSnapshot.Member("slow", a.client(), SnapshotRequest.of("ro-3-slow", TargetSpec.ofPid(w1.pid()))));
            // Far less than prepare + dump + commit of 64 MiB take together.
            assertThatThrownBy(() -> new TwoPhaseSnapshot(Duration.ofMillis(150)).run(members, CommitAction.THAW))
                    .isInstanceOf(TwoPhaseSnapshot.Failed.class).hasMessageContaining("timed out");
            assertRuns(w1);
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                    assertThat(a.engine().store().list()).extracting(m -> m.id + ":" + m.state + ":" + m.reason)
                            .anySatisfy(x -> assertThat(x).startsWith("ro-3-slow:FAILED")));
            // Thawed at once, not by the agent's watchdog (its default deadline is 30 s).
            assertRuns(w1);
            assertThat(a.engine().inFlight()).isEmpty();
        }
    }
}
