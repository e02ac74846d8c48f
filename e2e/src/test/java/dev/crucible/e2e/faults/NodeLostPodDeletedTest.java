package dev.crucible.e2e.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.contract.PhaseName;
import dev.crucible.e2e.Manifests;
import dev.crucible.e2e.SharedCluster;
import dev.crucible.e2e.cluster.FakeNodes;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Issue 41 point 2, API-server tier: a running member's pod deleted, once after its node was deleted (as the pod
 * garbage collector's force delete looks to an operator that missed its mark), once on a node that is still
 * there. The first Rollout must end Failed/NodeLost naming the node (an infrastructure failure), the second
 * Failed/MemberLost as before. e2e/faults/node-loss runs the whole fault with the real pod garbage collector.
 */
class NodeLostPodDeletedTest {

    @Test
    void aMemberGoneWithItsDeletedNodeEndsNodeLostAndOneDeletedByHandMemberLost() {
        SharedCluster.operator();
        KubernetesClient client = SharedCluster.client();
        String ns = SharedCluster.namespace("node-lost");
        FakeNodes.createCpuNode(client, "lost-a");
        FakeNodes.createCpuNode(client, "kept-b");
        try {
            Manifests.environment(client, ns, "calc", "resources: {cpu: 100m, memory: 128Mi}");
            Manifests.rollout(client, ns, "on-lost", "calc", "placement: {nodeSelector: {kubernetes.io/hostname: lost-a}}");
            Manifests.rollout(client, ns, "on-kept", "calc", "placement: {nodeSelector: {kubernetes.io/hostname: kept-b}}");
            await().atMost(Duration.ofSeconds(120)).until(() -> phase(client, ns, "on-lost") == PhaseName.Running
                    && phase(client, ns, "on-kept") == PhaseName.Running);

            client.nodes().withName("lost-a").delete();
            await().atMost(Duration.ofSeconds(10)).until(() -> client.nodes().withName("lost-a").get() == null);
            for (String pod : new String[] {"on-lost-main-0", "on-kept-main-0"}) {
                client.pods().inNamespace(ns).withName(pod).withGracePeriod(0).delete();
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> terminal(client, ns, "on-lost") && terminal(client, ns, "on-kept"));

            Rollout lost = client.resources(Rollout.class).inNamespace(ns).withName("on-lost").get();
            assertThat(lost.getStatus().phase).isEqualTo(PhaseName.Failed);
            assertThat(lost.getStatus().reason).isEqualTo("NodeLost");
            assertThat(lost.getStatus().message).contains("node lost-a", "on-lost-main-0");
            Rollout kept = client.resources(Rollout.class).inNamespace(ns).withName("on-kept").get();
            assertThat(kept.getStatus().phase).isEqualTo(PhaseName.Failed);
            assertThat(kept.getStatus().reason).isEqualTo("MemberLost");
        } finally {
            client.nodes().withName("lost-a").delete();
            client.nodes().withName("kept-b").delete();
        }
    }

    private static PhaseName phase(KubernetesClient client, String ns, String name) {
        Rollout r = client.resources(Rollout.class).inNamespace(ns).withName(name).get();
        return r == null || r.getStatus() == null ? null : r.getStatus().phase;
    }

    private static boolean terminal(KubernetesClient client, String ns, String name) {
        PhaseName p = phase(client, ns, name);
        return p != null && p.isTerminal();
    }
}
