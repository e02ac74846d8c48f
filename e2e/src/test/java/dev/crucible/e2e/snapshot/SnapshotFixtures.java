package dev.crucible.e2e.snapshot;

import dev.crucible.contract.PhaseName;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.awaitility.Awaitility.await;

import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.RolloutSnapshot;
import dev.crucible.api.v1alpha1.rollout.RolloutMember;
import dev.crucible.api.v1alpha1.snapshot.SnapshotPhase;
import dev.crucible.e2e.Manifests;
import dev.crucible.e2e.SharedCluster;
import dev.crucible.snapshot.workload.MemoryWorkload;
import java.nio.file.Files;
import java.nio.file.Path;
import dev.crucible.snapshot.criu.CriuBinary;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;

/** Rollouts with two members on kwok nodes, and RolloutSnapshots of them, for the snapshot tests. */
final class SnapshotFixtures {

    private SnapshotFixtures() {
    }

    static final String[] NODES = {"cpu-0", "cpu-1", "cpu-2"};

    /** A real agent for each CPU node, with its own store; workspaces live under {@code tmp/workspaces}. */
    static void startAgents(Path tmp) throws java.io.IOException {
        for (String node : NODES) {
            SharedCluster.AGENTS.start(tmp.resolve("store-" + node), Files.createDirectories(tmp.resolve("workspaces")), node);
        }
    }

    private static final List<String> NAMESPACES = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** A fresh namespace whose rollouts {@link #deleteRollouts} removes after the test. */
    static String namespace(String prefix) {
        String ns = SharedCluster.namespace(prefix);
        NAMESPACES.add(ns);
        return ns;
    }

    /**
     * Each pair takes 33 of a node's 64 CPUs, so the next test's pair only fits once these are gone:
     * delete every rollout the tests made and wait until their pods are.
     */
    static void deleteRollouts(KubernetesClient client) {
        for (String ns : NAMESPACES) {
            client.resources(Rollout.class).inNamespace(ns).delete();
        }
        for (String ns : NAMESPACES) {
            await().atMost(Duration.ofSeconds(30)).until(() -> client.pods().inNamespace(ns).list().getItems().isEmpty());
        }
        NAMESPACES.clear();
    }

    static void stopAgents() {
        for (String node : NODES) {
            SharedCluster.AGENTS.unbindNode(node);
        }
    }

    /**
     * Binds each member pod to a real process holding {@code mib} MiB and working in its own
     * workspace (which holds a progress.txt naming the pod).
     */
    static List<MemoryWorkload> bindProcesses(Path tmp, String ns, List<RolloutMember> members, int mib) throws java.io.IOException {
        List<MemoryWorkload> started = new java.util.ArrayList<>();
        for (RolloutMember m : members) {
            Path ws = Files.createDirectories(tmp.resolve("workspaces").resolve(ns + "-" + m.pod));
            Files.writeString(ws.resolve("progress.txt"), "step 41 of " + m.pod + "\n");
            MemoryWorkload w = MemoryWorkload.start(mib, 16, 10, 0, ws);
            started.add(w);
            SharedCluster.AGENTS.bind(ns, m.pod, w.pid(), ws);
        }
        return started;
    }

    /** Real processes are frozen and dumped: root and CRIU ≥ 4.1 are needed. */
    static void assumeCriu() {
        assumeTrue("root".equals(System.getProperty("user.name")), "needs root (cgroup freezer, CRIU)");
        assumeTrue(CriuBinary.find().isPresent(), CriuBinary.MISSING);
    }

    /**
     * A two-member CPU rollout, Running, on two different nodes (33 of a node's 64 CPUs each);
     * returns its members. Tests delete it at the end to free the nodes for the next.
     */
    static List<RolloutMember> runningPair(KubernetesClient client, String ns, String rollout) {
        return runningPair(client, ns, rollout, "");
    }

    static List<RolloutMember> runningPair(KubernetesClient client, String ns, String rollout, String extraSpec) {
        Manifests.environment(client, ns, "pair", """
                resources: {cpu: "33", memory: 1Gi}
                topology:
                  gangTimeoutSeconds: 120
                  roles:
                    - name: worker
                      replicas: 2
                """);
        Manifests.rollout(client, ns, rollout, "pair", "limits: {maxDurationSeconds: 3600}\n" + extraSpec);
        await().atMost(Duration.ofSeconds(60)).until(() -> phase(client, ns, rollout) == PhaseName.Running);
        return client.resources(Rollout.class).inNamespace(ns).withName(rollout).get().getStatus().members;
    }

    static PhaseName phase(KubernetesClient client, String ns, String name) {
        Rollout r = client.resources(Rollout.class).inNamespace(ns).withName(name).get();
        return r == null || r.getStatus() == null ? null : r.getStatus().phase;
    }

    static RolloutSnapshot snapshot(KubernetesClient client, String ns, String name, String rollout, String extraSpec) {
        String yaml = """
                apiVersion: crucible.dev/v1alpha1
                kind: RolloutSnapshot
                metadata:
                  name: %s
                  namespace: %s
                spec:
                  rolloutRef: {name: %s}
                  timeoutSeconds: 60
                %s
                """.formatted(name, ns, rollout, extraSpec.indent(2));
        return client.resource(client.getKubernetesSerialization().unmarshal(yaml, RolloutSnapshot.class)).create();
    }

    static RolloutSnapshot get(KubernetesClient client, String ns, String name) {
        return client.resources(RolloutSnapshot.class).inNamespace(ns).withName(name).get();
    }

    static RolloutSnapshot awaitPhase(KubernetesClient client, String ns, String name, SnapshotPhase phase) {
        await().atMost(Duration.ofSeconds(90)).until(() -> {
            RolloutSnapshot s = get(client, ns, name);
            return s != null && s.getStatus() != null && s.getStatus().phase == phase;
        });
        return get(client, ns, name);
    }
}
