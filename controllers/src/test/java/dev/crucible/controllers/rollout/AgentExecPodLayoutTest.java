package dev.crucible.controllers.rollout;

import dev.crucible.controllers.common.RolloutLabels;
import dev.crucible.controllers.common.PodLayout;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.rollout.RolloutMode;
import dev.crucible.contract.AgentExecContainer;
import dev.crucible.contract.GradingContainer;
import dev.crucible.controllers.Fixtures;
import dev.crucible.controllers.config.OperatorSettings;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * An interactive pod's agent-exec container: the trainer's bash steps run there (the runner in agent
 * mode), with the agent's uid and view and nothing of the sidecar; an embedded pod has none.
 */
class AgentExecPodLayoutTest {
    private final RolloutPodBuilder builder = new RolloutPodBuilder(OperatorSettings.defaults().withVerifierImage("verifier:test"));

    private Pod pod(RLEnvironment env, RolloutMode mode) {
        Rollout rollout = Fixtures.rollout("r1", "env");
        rollout.getSpec().mode = mode;
        if (mode == RolloutMode.INTERACTIVE) rollout.getSpec().agent = null;
        List<MemberPlan> plan = TopologyPlanner.plan(env.getSpec());
        return builder.build(rollout, env, plan.get(0), plan, false, null);
    }

    private static Container container(Pod pod, String name) {
        return pod.getSpec().getContainers().stream().filter(c -> c.getName().equals(name)).findFirst().orElseThrow();
    }

    private static Map<String, String> env(Container c) {
        Map<String, String> m = new java.util.LinkedHashMap<>();
        for (EnvVar e : c.getEnv()) assertThat(m.put(e.getName(), e.getValue())).as("duplicate variable " + e.getName()).isNull();
        return m;
    }

    @Test
    void theAgentExecContainerHasTheAgentsViewAndNothingOfTheSidecar() {
        Pod pod = pod(Fixtures.cpuEnvironment("env"), RolloutMode.INTERACTIVE);
        Container exec = container(pod, RolloutLabels.AGENT_EXEC_CONTAINER);
        Container agent = container(pod, RolloutLabels.AGENT_CONTAINER);
        assertThat(exec.getImage()).isEqualTo("example/env:1");
        assertThat(exec.getCommand()).containsExactlyElementsOf(AgentExecContainer.command()).contains("--mode", "agent");
        assertThat(exec.getCommand()).contains(GradingContainer.SCRIPT_PATH); // the grading runner, not a second one
        assertThat(exec.getWorkingDir()).isEqualTo("/workspace");
        assertThat(exec.getVolumeMounts()).extracting(VolumeMount::getName, VolumeMount::getMountPath, VolumeMount::getReadOnly)
                .containsExactlyInAnyOrder(
                        tuple(PodLayout.WORKSPACE_VOLUME, "/workspace", null),
                        tuple(PodLayout.CONFIG_VOLUME, PodLayout.TASK_FILE, true),
                        tuple(PodLayout.PRISTINE_VOLUME, "/workspace/tests", true),
                        tuple(RolloutPodBuilder.AGENT_EXEC_VOLUME, AgentExecContainer.MOUNT, true),
                        tuple(RolloutPodBuilder.AGENT_EXEC_TMP_VOLUME, "/tmp", null),
                        tuple(PodLayout.CONFIG_VOLUME, GradingContainer.SCRIPT_PATH, true));
        // the same protected-path overlay the agent container has
        assertThat(exec.getVolumeMounts()).filteredOn(m -> m.getName().equals(PodLayout.PRISTINE_VOLUME))
                .extracting(VolumeMount::getMountPath, VolumeMount::getSubPath)
                .containsExactlyElementsOf(agent.getVolumeMounts().stream().filter(m -> m.getName().equals(PodLayout.PRISTINE_VOLUME))
                        .map(m -> tuple(m.getMountPath(), m.getSubPath())).toList());
        Map<String, String> vars = env(exec);
        assertThat(vars).containsEntry("HOME", "/tmp").containsEntry("CRUCIBLE_TASK_FILE", PodLayout.TASK_FILE)
                .containsEntry("CRUCIBLE_ROLLOUT", "r1");
        assertThat(vars.keySet()).noneMatch(k -> k.contains("TOKEN") || k.contains("SOCKET") || k.contains("RUN_DIR") || k.contains("ENV_API"));
        var sc = exec.getSecurityContext();
        long podUid = pod.getSpec().getSecurityContext().getRunAsUser();
        assertThat(sc.getRunAsUser()).isEqualTo(podUid); // the agent's uid: the workspace is its own
        assertThat(sc.getReadOnlyRootFilesystem()).isTrue();
        assertThat(sc.getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(sc.getCapabilities().getAdd()).isNullOrEmpty();
        assertThat(sc.getAllowPrivilegeEscalation()).isFalse();
        assertThat(sc.getPrivileged()).isFalse();
        assertThat(sc.getRunAsNonRoot()).isTrue();
        assertThat(sc.getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
        assertThat(exec.getPorts()).isNullOrEmpty();
        assertThat(pod.getSpec().getAutomountServiceAccountToken()).isFalse();
        assertThat(pod.getSpec().getShareProcessNamespace()).isFalse();
        // up to the member's resources, requesting only the sidecar's share
        assertThat(exec.getResources().getLimits()).isEqualTo(agent.getResources().getLimits());
        assertThat(exec.getResources().getRequests()).isEqualTo(container(pod, RolloutLabels.VERIFIER_CONTAINER).getResources().getRequests());
    }

    @Test
    void theSocketVolumeIsTheSidecarsAndTheAgentExecContainersOnly() {
        for (RLEnvironment env : List.of(Fixtures.cpuEnvironment("env"), Fixtures.gpuEnvironment("env", 1))) {
            Pod pod = pod(env, RolloutMode.INTERACTIVE);
            List<Container> all = new ArrayList<>(pod.getSpec().getContainers());
            all.addAll(pod.getSpec().getInitContainers());
            assertThat(all).filteredOn(c -> c.getVolumeMounts().stream().anyMatch(m -> m.getName().equals(RolloutPodBuilder.AGENT_EXEC_VOLUME)))
                    .extracting(Container::getName).containsExactlyInAnyOrder(RolloutLabels.VERIFIER_CONTAINER, RolloutLabels.AGENT_EXEC_CONTAINER);
            // nothing of the sidecar's in the agent-exec container
            Container exec = container(pod, RolloutLabels.AGENT_EXEC_CONTAINER);
            assertThat(exec.getVolumeMounts()).extracting(VolumeMount::getName).doesNotContain(PodLayout.API_TOKEN_VOLUME,
                    PodLayout.RUN_VOLUME, PodLayout.VERIFIER_TMP_VOLUME, PodLayout.GRADING_VOLUME,
                    PodLayout.GRADING_TMP_VOLUME);
            assertThat(exec.getVolumeMounts()).filteredOn(m -> m.getName().equals(PodLayout.CONFIG_VOLUME))
                    .extracting(VolumeMount::getSubPath).containsExactlyInAnyOrder(EnvironmentConfigMapBuilder.TASK_KEY, GradingContainer.CONFIG_KEY);
            assertThat(exec.getResources().getLimits()).doesNotContainKey(PodLayout.GPU_RESOURCE);
            Container verifier = container(pod, RolloutLabels.VERIFIER_CONTAINER);
            assertThat(env(verifier)).containsEntry("CRUCIBLE_AGENT_EXEC_SOCKET", AgentExecContainer.SOCKET);
            assertThat(verifier.getVolumeMounts()).anySatisfy(m -> {
                assertThat(m.getName()).isEqualTo(RolloutPodBuilder.AGENT_EXEC_VOLUME);
                assertThat(m.getMountPath()).isEqualTo(AgentExecContainer.MOUNT);
                assertThat(m.getReadOnly()).isNotEqualTo(Boolean.TRUE); // the sidecar binds the socket there
            });
        }
    }

    @Test
    void anEmbeddedPodHasNoAgentExecContainer() {
        Pod pod = pod(Fixtures.cpuEnvironment("env"), RolloutMode.EMBEDDED);
        assertThat(pod.getSpec().getContainers()).extracting(Container::getName)
                .containsExactly(RolloutLabels.AGENT_CONTAINER, RolloutLabels.VERIFIER_CONTAINER, RolloutLabels.GRADING_CONTAINER,
                        RolloutLabels.ORACLE_WORKER_CONTAINER);
        assertThat(pod.getSpec().getVolumes()).extracting(v -> v.getName())
                .doesNotContain(RolloutPodBuilder.AGENT_EXEC_VOLUME, RolloutPodBuilder.AGENT_EXEC_TMP_VOLUME);
        assertThat(env(container(pod, RolloutLabels.VERIFIER_CONTAINER))).doesNotContainKey("CRUCIBLE_AGENT_EXEC_SOCKET");
    }
}
