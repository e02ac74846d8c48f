package dev.crucible.e2e.snapshot;

import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.rollout.RolloutMember;
import dev.crucible.e2e.SharedCluster;
import dev.crucible.e2e.cluster.LocalSnapshotAgents;
import dev.crucible.snapshot.workload.MemoryWorkload;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * What every snapshot test on the real API server shares: the operator, a temp folder for agent
 * stores and workspaces, the processes standing for pods (stopped after each test, with the
 * rollouts), and the agents (stopped after the class). Subclasses start the agents they need.
 */
abstract class AgentsOnApiServerTest {

    static KubernetesClient client;
    static final LocalSnapshotAgents AGENTS = SharedCluster.AGENTS;

    @TempDir
    static Path tmp;
    /** Processes the test started for member pods. */
    final List<MemoryWorkload> workloads = new ArrayList<>();
    /** Processes restores made (no launcher of ours): killed by pid. */
    final List<Long> restored = new ArrayList<>();

    @BeforeAll
    static void operator() {
        SharedCluster.operator();
        client = SharedCluster.client();
    }

    @AfterEach
    void stopProcessesAndRollouts() {
        workloads.forEach(MemoryWorkload::close);
        restored.forEach(MemoryWorkload::kill);
        killWorkingUnder(tmp);
        SnapshotFixtures.deleteRollouts(client);
    }

    /**
     * Any process still working in one of this class's workspaces: a copy a restore made that no test
     * recorded (a revert, a branch) would otherwise outlive the build (one was found running after CI).
     */
    static void killWorkingUnder(Path dir) {
        long self = ProcessHandle.current().pid();
        ProcessHandle.allProcesses().filter(h -> h.pid() != self).forEach(h -> {
            try {
                if (java.nio.file.Files.readSymbolicLink(Path.of("/proc", Long.toString(h.pid()), "cwd")).startsWith(dir)) {
                    h.destroyForcibly();
                }
            } catch (java.io.IOException | RuntimeException e) {
                // gone, or not ours to read
            }
        });
    }

    @AfterAll
    static void stopAgents() {
        SnapshotFixtures.stopAgents();
        killWorkingUnder(tmp);
    }

    /** Binds each member pod to a real process holding {@code mib} MiB (see {@link SnapshotFixtures#bindProcesses}). */
    List<MemoryWorkload> bindProcesses(String ns, List<RolloutMember> members, int mib) throws Exception {
        List<MemoryWorkload> started = SnapshotFixtures.bindProcesses(tmp, ns, members, mib);
        workloads.addAll(started);
        return started;
    }

    static Rollout get(String ns, String name) {
        return client.resources(Rollout.class).inNamespace(ns).withName(name).get();
    }
}
