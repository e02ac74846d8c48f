package dev.crucible.e2e;

import dev.crucible.contract.PhaseName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.crucible.api.v1alpha1.Rollout;
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

    static PhaseName phase(String ns, String name) {
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
        await().atMost(Duration.ofSeconds(60)).until(() -> phase(ns, "kernel-a0") == PhaseName.Running);
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
    void aGangThatCanNeverFitFailsAtOnceWithoutBindingAnything() {
        String ns = SharedCluster.namespace("gang-never");
        // Four 8-GPU members on a cluster with three 8-GPU nodes: some could start, so none may, and none ever can.
        Manifests.environment(client, ns, "huge", """
                resources: {cpu: "4", memory: 16Gi}
                topology:
                  gangTimeoutSeconds: 300
                  roles:
                    - name: trainer
                      replicas: 4
                      gpusPerReplica: 8
                """);
        Manifests.rollout(client, ns, "huge-a0", "huge", "");
        await().atMost(Duration.ofSeconds(60)).until(() -> phase(ns, "huge-a0") == PhaseName.Failed);
        Rollout r = client.resources(Rollout.class).inNamespace(ns).withName("huge-a0").get();
        assertThat(r.getStatus().reason).isEqualTo("GangCannotFit");
        assertThat(r.getStatus().message).contains("nvidia.com/gpu=32 in all", "nvidia.com/gpu=24 together");
        assertThat(Manifests.podsOf(client, ns, "huge-a0")).allSatisfy(p -> assertThat(p.getSpec().getNodeName()).isNull());
        await().atMost(Duration.ofSeconds(30)).until(() -> Manifests.podsOf(client, ns, "huge-a0").stream()
                .allMatch(p -> p.getMetadata().getDeletionTimestamp() != null));
    }

    /** One pod asking more GPUs than any node has: failed as soon as the scheduler gives up on it, not at the deadline. */
    @Test
    void aPodNoNodeCouldEverHoldFailsAtOnce() {
        String ns = SharedCluster.namespace("no-fit");
        Manifests.environment(client, ns, "wide", """
                resources: {cpu: "4", memory: 16Gi, gpus: 16}
                """);
        Manifests.rollout(client, ns, "wide-a0", "wide", "");
        await().atMost(Duration.ofSeconds(60)).until(() -> phase(ns, "wide-a0") == PhaseName.Failed);
        Rollout r = client.resources(Rollout.class).inNamespace(ns).withName("wide-a0").get();
        assertThat(r.getStatus().reason).isEqualTo("CannotFit");
        assertThat(r.getStatus().message).contains("nvidia.com/gpu=16", "largest: nvidia.com/gpu=8");
    }

    /**
     * Two gangs for one node's GPUs: the second stays whole behind its scheduling gates (no member binds and
     * holds GPUs) while the first runs, and starts when the first is deleted.
     */
    @Test
    void aGangWaitsGatedWhileItsNodeIsTakenAndStartsWhenItIsFreed() {
        String ns = SharedCluster.namespace("gang-wait");
        Manifests.environment(client, ns, "pair", """
                resources: {cpu: "2", memory: 4Gi}
                topology:
                  gangTimeoutSeconds: 240
                  roles:
                    - name: worker
                      replicas: 2
                      gpusPerReplica: 4
                """);
        String onGpu2 = """
                placement:
                  nodeSelector:
                    kubernetes.io/hostname: gpu-2
                """;
        Manifests.rollout(client, ns, "first", "pair", onGpu2);
        await().atMost(Duration.ofSeconds(200)).until(() -> phase(ns, "first") == PhaseName.Running);
        Manifests.rollout(client, ns, "second", "pair", onGpu2);
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            Rollout r = client.resources(Rollout.class).inNamespace(ns).withName("second").get();
            return r != null && r.getStatus() != null && "GangWaitingForCapacity".equals(r.getStatus().reason);
        });
        for (int i = 0; i < 3; i++) {
            assertThat(Manifests.podsOf(client, ns, "second")).hasSize(2).allSatisfy(p -> {
                assertThat(p.getSpec().getNodeName()).isNull();
                assertThat(p.getSpec().getSchedulingGates()).isNotEmpty();
            });
            sleep(1000);
        }
        client.resources(Rollout.class).inNamespace(ns).withName("first").delete();
        await().atMost(Duration.ofSeconds(90)).until(() -> phase(ns, "second") == PhaseName.Running);
        assertThat(Manifests.podsOf(client, ns, "second")).allSatisfy(p -> assertThat(p.getSpec().getNodeName()).isEqualTo("gpu-2"));
        client.resources(Rollout.class).inNamespace(ns).withName("second").delete();
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
