package dev.crucible.snapshot.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.crucible.snapshot.HostAssumptions;
import dev.crucible.snapshot.freeze.CgroupV2Freezer;
import dev.crucible.snapshot.store.ImageStore;
import dev.crucible.snapshot.client.store.SnapshotId;
import dev.crucible.snapshot.client.store.SnapshotState;
import dev.crucible.snapshot.target.ProcFs;
import dev.crucible.snapshot.workload.MemoryWorkload;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 of the agent JVM in the middle of a CRIU dump: nothing may stay frozen once the agent
 * is back, and the snapshot must read FAILED.
 */
class AgentCrashRecoveryTest {

    static final String TOKEN = "operator-token-0123456789abcdef";

    @TempDir
    Path tmp;

    @Test
    void killMinus9MidDumpLeavesNothingFrozenAndTheSnapshotFailed() throws Exception {
        HostAssumptions.assumeCriu();
        Path store = tmp.resolve("store");
        Path token = Files.writeString(tmp.resolve("token"), TOKEN);
        HttpClient http = HttpClient.newHttpClient();
        try (MemoryWorkload w = MemoryWorkload.start(512, 0, 10, 0)) {
            String roots = AgentProcess.registerRollout(tmp.resolve("rollouts"), w.pid()).toString();
            AgentProcess agent = AgentProcess.start(store, token, tmp.resolve("agent-1.log"), "--rollout-root", roots);
            HttpResponse<String> prep = http.send(post(agent.port, "/v1/dump/prepare",
                    "{\"snapshotId\":\"crash\",\"target\":{\"pid\":" + w.pid() + "},\"preDumps\":0}"),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(prep.statusCode()).as(prep.body()).isEqualTo(200);
            String cgroup = new ImageStore(store).require(SnapshotId.of("crash")).cgroupPath;
            assertThat(CgroupV2Freezer.isFrozen(Path.of(cgroup))).isTrue();

            http.sendAsync(post(agent.port, "/v1/dump/dump", "{\"snapshotId\":\"crash\"}"), HttpResponse.BodyHandlers.ofString());
            long criu = awaitChildNamed(agent.process.pid(), "criu");
            // kill once CRIU is writing pages: the tasks are seized and its parasite is inside them
            Path images = store.resolve("snapshots/crash/images/final");
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (ImageStore.sizeOf(images) < (16L << 20) && ProcFs.exists(criu) && System.nanoTime() < deadline) {
                LockSupport.parkNanos(500_000);
            }
            assertThat(ProcFs.exists(criu)).as("criu still dumping when the agent is killed").isTrue();
            agent.kill9();
            boolean criuOutlivedAgent = ProcFs.exists(criu);

            try (AgentProcess restarted = AgentProcess.start(store, token, tmp.resolve("agent-2.log"), "--rollout-root", roots)) {
                assertThat(restarted.recovered).isGreaterThan(0);
                assertThat(CgroupV2Freezer.isFrozen(Path.of(cgroup))).as("cgroup frozen after recovery").isFalse();
                char state = ProcFs.state(w.pid());
                assertThat(state).as("process state").isNotIn('T', 't');
                long c = w.status().count();
                await().atMost(Duration.ofSeconds(5)).until(() -> w.status().count() > c);
                var manifest = new ImageStore(store).require(SnapshotId.of("crash"));
                assertThat(manifest.state).isEqualTo(SnapshotState.FAILED);
                assertThat(manifest.reason).contains("agent restarted");
                assertThat(Files.list(store.resolve("journal"))).isEmpty();
                HttpResponse<String> restore = http.send(post(restarted.port, "/v1/restore", "{\"snapshotId\":\"crash\"}"),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(restore.statusCode()).isEqualTo(409);
                System.out.println("criu outlived the agent: " + criuOutlivedAgent);
                Files.readAllLines(tmp.resolve("agent-2.log")).stream().filter(l -> l.contains("recovery:"))
                        .forEach(System.out::println);
            }
        }
    }

    @Test
    void killMinus9WhileFrozenIsUndoneWhenTheAgentComesBack() throws Exception {
        HostAssumptions.assumeCgroup2();
        Path store = tmp.resolve("store");
        Path token = Files.writeString(tmp.resolve("token"), TOKEN);
        HttpClient http = HttpClient.newHttpClient();
        try (MemoryWorkload w = MemoryWorkload.start(8, 0, 5, 0)) {
            String roots = AgentProcess.registerRollout(tmp.resolve("rollouts"), w.pid()).toString();
            // Recovery alone: without the freeze lease watchdog (FreezeLeaseWatchdogTest covers it), as when
            // the agent and a watchdog container die together
            AgentProcess agent = AgentProcess.start(store, token, tmp.resolve("agent-1.log"), "--rollout-root", roots,
                    "--no-freeze-watchdog");
            HttpResponse<String> frozen = http.send(post(agent.port, "/v1/freeze",
                    "{\"target\":{\"pid\":" + w.pid() + "},\"timeoutMs\":600000}"), HttpResponse.BodyHandlers.ofString());
            assertThat(frozen.statusCode()).as(frozen.body()).isEqualTo(200);
            String cgroup = frozen.body().replaceAll("(?s).*\"cgroup\"\\s*:\\s*\"([^\"]+)\".*", "$1");
            assertThat(CgroupV2Freezer.isFrozen(Path.of(cgroup))).isTrue();
            agent.kill9();
            assertThat(CgroupV2Freezer.isFrozen(Path.of(cgroup))).as("still frozen while no agent runs").isTrue();
            try (AgentProcess restarted = AgentProcess.start(store, token, tmp.resolve("agent-2.log"), "--rollout-root", roots)) {
                assertThat(restarted.recovered).isGreaterThan(0);
                assertThat(CgroupV2Freezer.isFrozen(Path.of(cgroup))).isFalse();
                long c = w.status().count();
                await().atMost(Duration.ofSeconds(5)).until(() -> w.status().count() > c);
                assertThat(Files.list(store.resolve("journal"))).isEmpty();
            }
        }
    }

    private static HttpRequest post(int port, String path, String body) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Authorization", "Bearer " + TOKEN).POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }

    private static long awaitChildNamed(long parent, String comm) {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline) {
            for (long child : ProcFs.children(parent)) {
                try {
                    if (ProcFs.comm(child).equals(comm)) {
                        return child;
                    }
                } catch (RuntimeException ignored) {
                    // exited
                }
            }
            LockSupport.parkNanos(200_000);
        }
        throw new AssertionError("no " + comm + " child of agent " + parent + " appeared");
    }
}
