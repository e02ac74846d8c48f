package dev.crucible.e2e;

import dev.crucible.contract.PhaseName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.crucible.api.v1alpha1.Rollout;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** A restart of the operator at any moment neither loses nor duplicates a rollout's pods. */
class OperatorRestartTest {

    @Test
    void restartMidCreationAndMidRunLeavesExactlyThePlannedPods() throws Exception {
        SharedCluster.operator();
        KubernetesClient client = SharedCluster.client();
        String ns = SharedCluster.namespace("restart");
        Manifests.environment(client, ns, "calc", "resources: {cpu: 100m, memory: 128Mi}");
        Manifests.environment(client, ns, "pair", """
                resources: {cpu: 100m, memory: 128Mi}
                topology:
                  roles:
                    - name: worker
                      replicas: 2
                """);
        int n = 12;
        for (int i = 0; i < n; i++) {
            Manifests.rollout(client, ns, "r" + i, i % 3 == 0 ? "pair" : "calc", "");
        }
        // Crash while pods are being created.
        Thread.sleep(300);
        SharedCluster.restartOperator();
        await().atMost(Duration.ofSeconds(90)).until(() -> client.resources(Rollout.class).inNamespace(ns).list().getItems()
                .stream().allMatch(r -> r.getStatus() != null && r.getStatus().phase == PhaseName.Running));
        Map<String, String> uids = uids(client, ns);
        assertThat(uids).hasSize(n + n / 3);

        // Crash again while everything runs: the new operator adopts, and creates nothing.
        SharedCluster.restartOperator();
        Thread.sleep(3000);
        assertThat(uids(client, ns)).isEqualTo(uids);
        assertThat(client.resources(Rollout.class).inNamespace(ns).list().getItems())
                .allSatisfy(r -> assertThat(r.getStatus().phase).isEqualTo(PhaseName.Running));
    }

    private static Map<String, String> uids(KubernetesClient client, String ns) {
        List<Pod> pods = client.pods().inNamespace(ns).list().getItems();
        return pods.stream().collect(Collectors.toMap(p -> p.getMetadata().getName(), p -> p.getMetadata().getUid()));
    }
}
