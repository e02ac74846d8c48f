package dev.crucible.e2e.snapshot;

import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.awaitility.Awaitility.await;

import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.RolloutSnapshot;
import dev.crucible.api.v1alpha1.rollout.RolloutMember;
import dev.crucible.api.v1alpha1.rollout.RolloutPhase;
import dev.crucible.api.v1alpha1.snapshot.SnapshotPhase;
import dev.crucible.e2e.Manifests;
import dev.crucible.snapshot.criu.CriuBinary;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;

/** Rollouts with two members on kwok nodes, and RolloutSnapshots of them, for the snapshot tests. */
final class SnapshotFixtures {

    private SnapshotFixtures() {
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
        await().atMost(Duration.ofSeconds(60)).until(() -> phase(client, ns, rollout) == RolloutPhase.Running);
        return client.resources(Rollout.class).inNamespace(ns).withName(rollout).get().getStatus().members;
    }

    static RolloutPhase phase(KubernetesClient client, String ns, String name) {
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
