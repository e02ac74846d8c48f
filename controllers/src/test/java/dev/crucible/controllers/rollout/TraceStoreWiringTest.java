package dev.crucible.controllers.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.controllers.Fixtures;
import dev.crucible.controllers.common.RolloutLabels;
import dev.crucible.controllers.config.OperatorSettings;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * With a trace store set, a rollout pod runs as the trace writer and only its sidecar holds the store's token; without
 * one, the pod is as before (no account named, no token, no variables).
 */
class TraceStoreWiringTest {
    private static Pod pod(OperatorSettings settings) {
        RLEnvironment env = Fixtures.cpuEnvironment("env");
        List<MemberPlan> plan = TopologyPlanner.plan(env.getSpec());
        return new RolloutPodBuilder(settings).build(Fixtures.rollout("r1", "env"), env, plan.get(0), plan, false, null);
    }

    @Test
    void withAStoreOnlyTheSidecarGetsTheWritersTokenForTheStoresAudience() {
        Pod pod = pod(OperatorSettings.defaults().withTraceStore("http://crucible-trace-store.crucible.svc:8470"));
        assertThat(pod.getSpec().getServiceAccountName()).isEqualTo("crucible-trace-writer");
        assertThat(pod.getSpec().getAutomountServiceAccountToken()).as("no API-server token anywhere").isFalse();
        var volume = pod.getSpec().getVolumes().stream().filter(v -> v.getName().equals(TraceStoreWiring.VOLUME)).findFirst().orElseThrow();
        var token = volume.getProjected().getSources().get(0).getServiceAccountToken();
        assertThat(token.getAudience()).isEqualTo("crucible-trace-store");
        assertThat(token.getExpirationSeconds()).isEqualTo(3600L);
        for (Container c : pod.getSpec().getContainers()) {
            boolean mounted = c.getVolumeMounts().stream().anyMatch(m -> m.getName().equals(TraceStoreWiring.VOLUME));
            assertThat(mounted).as(c.getName() + " mounts the store's token").isEqualTo(c.getName().equals(RolloutLabels.VERIFIER_CONTAINER));
        }
        assertThat(pod.getSpec().getInitContainers()).allSatisfy(c -> assertThat(c.getVolumeMounts())
                .noneMatch(m -> m.getName().equals(TraceStoreWiring.VOLUME)));
        Map<String, String> env = sidecarEnv(pod);
        assertThat(env).containsEntry("CRUCIBLE_TRACE_STORE_URL", "http://crucible-trace-store.crucible.svc:8470")
                .containsEntry("CRUCIBLE_TRACE_TOKEN_FILE", "/var/run/secrets/crucible-trace/token")
                .containsEntry("CRUCIBLE_NAMESPACE", "ns").containsEntry("CRUCIBLE_ROLLOUT", "r1");
        assertThat(TraceStoreWiring.writer("team-a").getMetadata().getName()).isEqualTo(pod.getSpec().getServiceAccountName());
        assertThat(TraceStoreWiring.writer("team-a").getAutomountServiceAccountToken()).isFalse();
    }

    @Test
    void withoutAStoreThePodNamesNoAccountAndHasNoTraceVariables() {
        Pod pod = pod(OperatorSettings.defaults());
        assertThat(pod.getSpec().getServiceAccountName()).isNull();
        assertThat(pod.getSpec().getVolumes()).noneMatch(v -> v.getName().equals(TraceStoreWiring.VOLUME));
        assertThat(sidecarEnv(pod)).doesNotContainKeys("CRUCIBLE_TRACE_STORE_URL", "CRUCIBLE_TRACE_TOKEN_FILE");
        assertThat(OperatorSettings.defaults().withTraceStore(" ").traceStoreUrl()).isNull();
    }

    private static Map<String, String> sidecarEnv(Pod pod) {
        return pod.getSpec().getContainers().stream().filter(c -> c.getName().equals(RolloutLabels.VERIFIER_CONTAINER)).findFirst()
                .orElseThrow().getEnv().stream().filter(e -> e.getValue() != null).collect(Collectors.toMap(EnvVar::getName, EnvVar::getValue));
    }
}
