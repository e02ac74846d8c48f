package dev.crucible.snapshot.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.crucible.snapshot.HostAssumptions;
import dev.crucible.snapshot.engine.EngineBuilder;
import dev.crucible.snapshot.engine.FreezeResult;
import dev.crucible.snapshot.engine.SnapshotEngine;
import dev.crucible.snapshot.store.ManifestKey;
import dev.crucible.snapshot.target.ProcCgroups;
import dev.crucible.snapshot.target.ProcFs;
import dev.crucible.snapshot.target.TargetOutOfScopeException;
import dev.crucible.snapshot.target.TargetScope;
import dev.crucible.snapshot.client.api.TargetSpec;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent only acts on rollouts: a plain host process (a {@code sleep} this test did not keep
 * as a child, so it is not "started by the caller"), init and the agent itself are refused with
 * the reason, over the real API; the same sleep named by a live running.json is accepted.
 */
class HostProcessRefusalTest {

    static final String TOKEN = "operator-token-0123456789abcdef";
    static final ManifestKey KEY = ManifestKey.of("test-key-0123456789abcdef0123456789".getBytes());

    @TempDir
    Path tmp;
    private long sleepPid = -1;

    /** A host process that is nobody's child here: the shell that started it exits, init adopts it. */
    static long orphanSleep() throws Exception {
        Process sh = new ProcessBuilder("sh", "-c", "sleep 300 >/dev/null 2>&1 </dev/null & echo $!").start();
        String pid = new String(sh.getInputStream().readAllBytes()).trim();
        sh.waitFor(10, TimeUnit.SECONDS);
        return Long.parseLong(pid);
    }

    @AfterEach
    void killSleep() {
        if (sleepPid > 0) {
            ProcessHandle.of(sleepPid).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    @Test
    void aPlainHostProcessInitAndTheAgentAreRefusedOverTheApi() throws Exception {
        HostAssumptions.assumeProcessTools();
        sleepPid = orphanSleep();
        try (SnapshotEngine engine = new EngineBuilder().store(tmp.resolve("store")).manifestKey(KEY).build()) {
            AgentServer server = new AgentServer(engine, new BearerTokenAuth(TOKEN));
            try {
                String base = "http://127.0.0.1:" + server.start("127.0.0.1", 0);
                HttpResponse<String> r = post(base, "/v1/freeze", "{\"target\":{\"pid\":" + sleepPid + "},\"timeoutMs\":5000}");
                assertThat(r.statusCode()).as(r.body()).isEqualTo(403);
                assertThat(r.body()).contains("pid " + sleepPid).contains("not a local rollout").contains("refused");
                assertThat(ProcFs.state(sleepPid)).as("the sleep was never stopped").isNotEqualTo('T');
                assertThat(ProcCgroups.of(sleepPid).paths()).noneMatch(p -> p.contains("tree-"));

                HttpResponse<String> dump = post(base, "/v1/dump/prepare",
                        "{\"snapshotId\":\"host-1\",\"target\":{\"pid\":" + sleepPid + "}}");
                assertThat(dump.statusCode()).as(dump.body()).isEqualTo(403);
                assertThat(Files.list(tmp.resolve("store/snapshots"))).as("nothing recorded for a refused target").isEmpty();

                HttpResponse<String> init = post(base, "/v1/freeze", "{\"target\":{\"pid\":1},\"timeoutMs\":5000}");
                assertThat(init.statusCode()).as(init.body()).isEqualTo(400);
                assertThat(init.body()).contains("target.pid must be > 1");
                HttpResponse<String> self = post(base, "/v1/freeze",
                        "{\"target\":{\"pid\":" + ProcessHandle.current().pid() + "},\"timeoutMs\":5000}");
                assertThat(self.statusCode()).as(self.body()).isEqualTo(403);
                assertThat(self.body()).contains("snapshot agent itself");
            } finally {
                server.close();
            }
        }
    }

    @Test
    void thePodScopeRefusesAnyProcessOutsideAPodCgroup() throws Exception {
        HostAssumptions.assumeProcessTools();
        sleepPid = orphanSleep();
        try (SnapshotEngine engine = new EngineBuilder().store(tmp.resolve("store")).manifestKey(KEY).scope(TargetScope.pods()).build()) {
            assertThatThrownBy(() -> engine.freeze(TargetSpec.ofPid(sleepPid), 5_000L))
                    .isInstanceOf(TargetOutOfScopeException.class).hasMessageContaining("not in a pod's cgroup (kubepods)");
        }
    }

    @Test
    void theSameProcessIsAcceptedOnceALiveRunningJsonNamesIt() throws Exception {
        HostAssumptions.assumeProcessTools();
        sleepPid = orphanSleep();
        Path rollouts = Files.createDirectories(tmp.resolve("rollouts/attempt-1"));
        Files.writeString(rollouts.resolve("running.json"),
                "{\"agentPid\":" + sleepPid + ",\"agentStartTicks\":" + (ProcFs.startTime(sleepPid) + 1) + "}");
        try (SnapshotEngine engine = new EngineBuilder().store(tmp.resolve("store")).manifestKey(KEY)
                .rolloutRoot(tmp.resolve("rollouts")).build()) {
            assertThatThrownBy(() -> engine.freeze(TargetSpec.ofPid(sleepPid), 5_000L))
                    .as("a stale running.json (other start time) registers nothing").isInstanceOf(TargetOutOfScopeException.class);
            Files.writeString(rollouts.resolve("running.json"),
                    "{\"agentPid\":" + sleepPid + ",\"agentStartTicks\":" + ProcFs.startTime(sleepPid) + "}");
            FreezeResult f = engine.freeze(TargetSpec.ofPid(sleepPid), 5_000L);
            engine.thaw(f.freezeId());
        }
    }

    @Test
    void podUidsAreReadFromBothKubeletLayouts() {
        String uid = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";
        assertThat(ProcCgroups.podUid("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
                + uid.replace('-', '_') + ".slice/cri-containerd-abc.scope")).isEqualTo(uid);
        assertThat(ProcCgroups.podUid("/kubepods/besteffort/pod" + uid + "/0123456789ab")).isEqualTo(uid);
        assertThat(ProcCgroups.podUid("/system.slice/containerd.service")).isNull();
        assertThat(ProcCgroups.podUid("/user.slice/pod" + uid)).as("not under kubepods").isNull();
    }

    private static HttpResponse<String> post(String base, String path, String body) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base + path))
                .header("Authorization", "Bearer " + TOKEN).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
