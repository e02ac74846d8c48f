package dev.crucible.e2e.realnode;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.controllers.common.RolloutLabels;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;

/**
 * Issue 41 (soak) on a real kubelet: once a Rollout has ended, the operator keeps each container's log tail in the
 * ConfigMap {@code <rollout>-logs} (owned by the Rollout) before it deletes the pod, so the sidecar's and the agent's
 * logs outlive the pod. Here the tails come through the API server's {@code pods/log} from the node's real kubelet,
 * with the chart's RBAC, not from the API-server tier's stand-in.
 */
final class LogTailAssertions {
    private LogTailAssertions() {
    }

    /**
     * The ConfigMap holds a non-empty tail of the rollout pod's verifier and agent containers (not a "log not read"
     * note); the agent's contains {@code agentSays} where the agent prints something known ({@code null}: it may be empty).
     */
    static Map<String, String> assertKept(KubernetesClient client, String namespace, String rollout, String agentSays) {
        ConfigMap cm = Awaitility.await(rollout + "-logs").atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofSeconds(1))
                .until(() -> client.configMaps().inNamespace(namespace).withName(rollout + "-logs").get(), c -> c != null);
        Map<String, String> data = cm.getData();
        assertThat(cm.getMetadata().getOwnerReferences()).as("owned by the Rollout")
                .anySatisfy(o -> assertThat(o.getName()).isEqualTo(rollout));
        assertThat(data).as("keys of %s-logs", rollout).isNotNull()
                .hasKeySatisfying(new org.assertj.core.api.Condition<>(k -> k.endsWith("." + RolloutLabels.VERIFIER_CONTAINER + ".log"), "the sidecar's"))
                .hasKeySatisfying(new org.assertj.core.api.Condition<>(k -> k.endsWith("." + RolloutLabels.AGENT_CONTAINER + ".log"), "the agent's"));
        data.forEach((key, tail) -> assertThat(tail).as(key).doesNotStartWith("(log not read"));
        String sidecar = value(data, RolloutLabels.VERIFIER_CONTAINER);
        assertThat(sidecar).as("the sidecar's tail").isNotBlank();
        if (agentSays != null) assertThat(value(data, RolloutLabels.AGENT_CONTAINER)).as("the agent's tail").contains(agentSays);
        return data;
    }

    private static String value(Map<String, String> data, String container) {
        return data.entrySet().stream().filter(e -> e.getKey().endsWith("." + container + ".log")).findFirst().orElseThrow().getValue();
    }
}
