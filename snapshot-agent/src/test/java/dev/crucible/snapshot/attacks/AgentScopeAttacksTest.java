package dev.crucible.snapshot.attacks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.snapshot.HostAssumptions;
import dev.crucible.snapshot.agent.AgentServer;
import dev.crucible.snapshot.agent.BearerTokenAuth;
import dev.crucible.snapshot.engine.EngineBuilder;
import dev.crucible.snapshot.engine.SnapshotEngine;
import dev.crucible.snapshot.target.CgroupMounts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 14 "Snapshot agent scope": the node agent's privileged API (real server, real token) asked to
 * act on a host process that belongs to no Crucible rollout, and cgroups a crashed agent left frozen.
 * The victim is a plain {@code sleep} this test starts; it is thawed and killed afterwards whatever happens.
 */
@Tag("attacks")
@Timeout(120)
class AgentScopeAttacksTest {
    static final String TOKEN = "operator-token-0123456789abcdef";
    final HttpClient http = HttpClient.newHttpClient();

    @TempDir
    Path tmp;

    // Attack: a token holder (or a confused operator) freezes and dumps an arbitrary host process (a database,
    // the kubelet) through the agent, which refused only PID 1 and itself.
    // Must hold: freeze and dump/prepare of a process outside any rollout's cgroup are refused (403) and it keeps running.
    @Test
    void aHostProcessOutsideAnyRolloutIsNeitherFrozenNorDumped() throws Exception {
        HostAssumptions.assumeProcessTools();
        Files.createDirectories(tmp.resolve("workspaces"));
        Path tokenFile = Files.writeString(tmp.resolve("token"), TOKEN + "\n");
        // An orphan (reparented to init), not a child of this JVM: the agent serves in-process here, and
        // a process its own caller started counts as a local rollout's.
        Process spawner = new ProcessBuilder("setsid", "sh", "-c", "sleep 300 >/dev/null 2>&1 </dev/null & echo $!").start();
        long victimPid = Long.parseLong(new String(spawner.getInputStream().readAllBytes()).strip());
        spawner.waitFor(10, TimeUnit.SECONDS);
        ProcessHandle victim = ProcessHandle.of(victimPid).orElseThrow();
        try (SnapshotEngine engine = new EngineBuilder().store(tmp.resolve("store")).workspaceRoot(tmp.resolve("workspaces")).build()) {
            AgentServer server = new AgentServer(engine, BearerTokenAuth.fromFile(tokenFile));
            String base = "http://127.0.0.1:" + server.start("127.0.0.1", 0);
            try {
                HttpResponse<String> freeze = post(base + "/v1/freeze", "{\"target\":{\"pid\":" + victim.pid() + "}}");
                String state = procState(victim.pid());
                if (freeze.statusCode() == 200) {
                    String id = freeze.body().replaceAll("(?s).*\"freezeId\"\\s*:\\s*\"([^\"]+)\".*", "$1");
                    post(base + "/v1/thaw", "{\"freezeId\":\"" + id + "\"}"); // undo before failing
                }
                assertThat(freeze.statusCode()).as("freeze of a foreign host process: " + freeze.body()).isEqualTo(403);
                assertThat(state).as("the victim's state after the freeze call").isNotEqualTo("T");
                HttpResponse<String> prep = post(base + "/v1/dump/prepare", "{\"snapshotId\":\"foreign\",\"target\":{\"pid\":"
                        + victim.pid() + "}}");
                if (prep.statusCode() == 200) post(base + "/v1/dump/abort", "{\"snapshotId\":\"foreign\"}");
                assertThat(prep.statusCode()).as("dump/prepare of a foreign host process: " + prep.body()).isEqualTo(403);
            } finally {
                server.close();
            }
        } finally {
            victim.destroyForcibly();
            victim.onExit().get(10, TimeUnit.SECONDS);
        }
    }

    // Attack (left-behind state): a crashed agent leaves a process frozen in a crucible tree-* cgroup.
    // Must hold: the next agent on the node thaws it and removes the tree-* cgroup.
    @Test
    void aStaleFrozenTreeCgroupIsThawedAndRemoved() throws Exception {
        HostAssumptions.assumeCgroup2();
        Path cg2 = CgroupMounts.cgroup2().orElseThrow();
        Path parent = cg2.resolve("crucible-attack-" + ProcessHandle.current().pid());
        Path stale = parent.resolve("tree-4242-1");
        Process victim = new ProcessBuilder("sleep", "300").start();
        try {
            Files.createDirectories(stale);
            Files.writeString(stale.resolve("cgroup.procs"), Long.toString(victim.pid()));
            Files.writeString(stale.resolve("cgroup.freeze"), "1");
            try (SnapshotEngine engine = new EngineBuilder().store(tmp.resolve("store")).cgroupParent(parent).build()) {
                engine.recover(); // what the agent does at start-up, before it serves
            }
            boolean stillThere = Files.isDirectory(stale);
            String frozen = stillThere ? Files.readString(stale.resolve("cgroup.freeze")).strip() : "0";
            assertThat(frozen).as("the left-behind tree is thawed").isEqualTo("0");
            assertThat(stillThere).as("the left-behind " + stale + " is removed").isFalse();
        } finally {
            if (Files.isDirectory(stale)) {
                Files.writeString(stale.resolve("cgroup.freeze"), "0");
                Files.writeString(cg2.resolve("cgroup.procs"), Long.toString(victim.pid()));
            }
            victim.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            Thread.sleep(200);
            if (Files.isDirectory(parent)) {
                try (Stream<Path> s = Files.list(parent)) {
                    s.filter(Files::isDirectory).forEach(d -> d.toFile().delete());
                }
                parent.toFile().delete();
            }
        }
    }

    private HttpResponse<String> post(String url, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer " + TOKEN)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The one-letter state in /proc/PID/stat (T: stopped). */
    private static String procState(long pid) throws Exception {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        return stat.substring(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    }
}
