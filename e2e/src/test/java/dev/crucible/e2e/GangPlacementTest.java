package dev.crucible.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.rollout.RolloutPhase;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Multi-node GPU rollouts: gang start on GPU nodes only, and all-or-nothing when the gang cannot fit. */
class GangPlacementTest {

    static KubernetesClient client;

    @BeforeAll
    static void operator() {
        SharedCluster.operator();
        client = SharedCluster.client();
    }

    static RolloutPhase phase(String ns, String name) {
        Rollout r = client.resources(Rollout.class).inNamespace(ns).withName(name).get();
        return r == null || r.getStatus() == null ? null : r.getStatus().phase;
    }

    @Test
    void twoNodeGpuRolloutStartsAsAGangOnGpuNodesOnly() {
        String ns = SharedCluster.namespace("gang");
        Manifests.environment(client, ns, "kernel", """
                resources: {cpu: "4", memory: 16Gi, gpuModel: NVIDIA-H100-80GB-HBM3}
                topology:
                  gangTimeoutSeconds: 120
                  roles:
                    - name: trainer
                      replicas: 2
                      gpusPerReplica: 8
                """);
        Manifests.rollout(client, ns, "kernel-a0", "kernel", "");
        await().atMost(Duration.ofSeconds(60)).until(() -> phase(ns, "kernel-a0") == RolloutPhase.Running);
        List<Pod> pods = Manifests.podsOf(client, ns, "kernel-a0");
        assertThat(pods).extracting(p -> p.getMetadata().getName())
                .containsExactlyInAnyOrder("kernel-a0-trainer-0", "kernel-a0-trainer-1");
        assertThat(pods).allSatisfy(p -> {
            assertThat(p.getSpec().getNodeName()).startsWith("gpu-");
            assertThat(p.getSpec().getSchedulingGates()).isNullOrEmpty();
            assertThat(p.getSpec().getContainers().get(0).getResources().getLimits().get("nvidia.com/gpu").getAmount())
                    .isEqualTo("8");
            assertThat(p.getSpec().getSubdomain()).isEqualTo("kernel-a0");
        });
        // 8 GPUs each on 8-GPU nodes: the two members must be on different nodes.
        assertThat(pods.get(0).getSpec().getNodeName()).isNotEqualTo(pods.get(1).getSpec().getNodeName());
        var svc = client.services().inNamespace(ns).withName("kernel-a0").get();
        assertThat(svc.getSpec().getClusterIP()).isEqualTo("None");
        assertThat(svc.getMetadata().getOwnerReferences()).singleElement()
                .satisfies(o -> assertThat(o.getName()).isEqualTo("kernel-a0"));
        Rollout r = client.resources(Rollout.class).inNamespace(ns).withName("kernel-a0").get();
        assertThat(r.getStatus().members).hasSize(2).allSatisfy(m -> assertThat(m.gpus).isEqualTo(8));

        // Free the GPUs for the other tests, and check cleanup of the Service.
        client.resource(r).delete();
        await().atMost(Duration.ofSeconds(30)).until(() -> Manifests.podsOf(client, ns, "kernel-a0").isEmpty()
                && client.services().inNamespace(ns).withName("kernel-a0").get() == null);
    }

    @Test
    void gangThatCannotBePlacedIsRemovedWholeAfterItsTimeout() {
        String ns = SharedCluster.namespace("gang-timeout");
        // Four 8-GPU members on a cluster with three 8-GPU nodes: some could start, so none may.
        Manifests.environment(client, ns, "huge", """
                resources: {cpu: "4", memory: 16Gi}
                topology:
                  gangTimeoutSeconds: 10
                  roles:
                    - name: trainer
                      replicas: 4
                      gpusPerReplica: 8
                """);
        Manifests.rollout(client, ns, "huge-a0", "huge", "");
        await().atMost(Duration.ofSeconds(60)).until(() -> phase(ns, "huge-a0") == RolloutPhase.Failed);
        Rollout r = client.resources(Rollout.class).inNamespace(ns).withName("huge-a0").get();
        assertThat(r.getStatus().reason).isEqualTo("GangTimeout");
        assertThat(r.getStatus().message).contains("gangTimeoutSeconds");
        await().atMost(Duration.ofSeconds(30)).until(() -> Manifests.podsOf(client, ns, "huge-a0").stream()
                .allMatch(p -> p.getMetadata().getDeletionTimestamp() != null));
    }
}
