package dev.crucible.controllers.rollout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.contract.GradingContainer;
import dev.crucible.contract.OracleContainer;
import dev.crucible.controllers.Fixtures;
import dev.crucible.controllers.common.PodLayout;
import dev.crucible.controllers.common.RolloutLabels;
import dev.crucible.controllers.config.OperatorSettings;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The oracle-worker container (issue 33): the code under test runs there, apart from the grading process, with the
 * pod's safety defaults and nothing that holds a test: only the oracle volume's FIFO folder, the grading volume's
 * folder of tree copies (read-only, where the grading container has the real trees), the spawner's socket folder, its /tmp, the two
 * scripts and an empty read-only folder over the workspace's place.
 */
class OracleWorkerContainerTest {
    private final OperatorSettings settings = OperatorSettings.defaults().withVerifierImage("verifier:test");

    private Pod pod(RLEnvironment env) {
        List<MemberPlan> plan = TopologyPlanner.plan(env.getSpec());
        return new RolloutPodBuilder(settings).build(Fixtures.rollout("r1", "env"), env, plan.get(0), plan, false, null);
    }

    private static Container container(Pod pod, String name) {
        return pod.getSpec().getContainers().stream().filter(c -> c.getName().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void theWorkerContainerSeesNoTestNoWorkspaceAndNoGradingVolume() {
        Pod pod = pod(Fixtures.cpuEnvironment("env"));
        Container w = container(pod, RolloutLabels.ORACLE_WORKER_CONTAINER);
        String workspace = container(pod, RolloutLabels.AGENT_CONTAINER).getWorkingDir();
        assertThat(w.getImage()).isEqualTo("example/env:1");
        assertThat(w.getCommand()).containsExactlyElementsOf(OracleContainer.command());
        String v = OracleWorkerContainerBuilder.VOLUME;
        assertThat(w.getVolumeMounts()).extracting(VolumeMount::getName, VolumeMount::getMountPath, VolumeMount::getSubPath, VolumeMount::getReadOnly)
                .containsExactlyInAnyOrder(tuple(v, OracleContainer.IO, OracleContainer.IO_SUBPATH, null),
                        tuple(PodLayout.GRADING_VOLUME, GradingContainer.TREES, OracleContainer.TREES_SUBPATH, true),
                        tuple(v, OracleContainer.CTL, OracleContainer.CTL_SUBPATH, true),
                        tuple(v, workspace, OracleWorkerContainerBuilder.VOID_SUBPATH, true),
                        tuple(OracleWorkerContainerBuilder.TMP_VOLUME, "/tmp", null, null),
                        tuple(PodLayout.CONFIG_VOLUME, OracleContainer.SCRIPT_PATH, OracleContainer.CONFIG_KEY, true),
                        tuple(PodLayout.CONFIG_VOLUME, GradingContainer.SCRIPT_PATH, GradingContainer.CONFIG_KEY, true));
        assertThat(w.getEnv()).isNullOrEmpty();
        assertThat(w.getEnvFrom()).isNullOrEmpty();
        assertThat(w.getPorts()).isNullOrEmpty();
        var sc = w.getSecurityContext();
        assertThat(sc.getPrivileged()).isFalse();
        assertThat(sc.getAllowPrivilegeEscalation()).isFalse();
        assertThat(sc.getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(sc.getCapabilities().getAdd()).isNullOrEmpty();
        assertThat(sc.getReadOnlyRootFilesystem()).isTrue();
        assertThat(sc.getRunAsNonRoot()).isTrue();
        assertThat(sc.getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
        // the grading container's uid: pytest's 0700 tmp_path folders in the shared scratch folder stay readable
        assertThat(sc.getRunAsUser()).isEqualTo(container(pod, RolloutLabels.GRADING_CONTAINER).getSecurityContext().getRunAsUser());
        // its own PID namespace: no /proc entry names the grading process
        assertThat(pod.getSpec().getShareProcessNamespace()).isFalse();
        // it requests only the sidecar's share, as the grading container does
        assertThat(w.getResources()).isEqualTo(container(pod, RolloutLabels.GRADING_CONTAINER).getResources());
    }

    @Test
    void onlyTheSidecarSeesTheWholeOracleVolumeAndTheGradingContainerOnlyItsFifoFolder() {
        Pod pod = pod(Fixtures.cpuEnvironment("env"));
        Map<String, List<VolumeMount>> oracle = pod.getSpec().getContainers().stream().collect(Collectors.toMap(Container::getName,
                c -> c.getVolumeMounts().stream().filter(m -> m.getName().equals(OracleWorkerContainerBuilder.VOLUME)).toList()));
        assertThat(oracle.get(RolloutLabels.AGENT_CONTAINER)).isEmpty();
        assertThat(oracle.get(RolloutLabels.VERIFIER_CONTAINER)).extracting(VolumeMount::getMountPath, VolumeMount::getSubPath)
                .containsExactly(tuple(OracleContainer.MOUNT, null));
        assertThat(oracle.get(RolloutLabels.GRADING_CONTAINER)).extracting(VolumeMount::getMountPath, VolumeMount::getSubPath)
                .containsExactly(tuple(OracleContainer.IO, OracleContainer.IO_SUBPATH));
        // of the grading volume only the copies' folder (not the real trees, hidden tests, results) reaches the worker container
        assertThat(container(pod, RolloutLabels.ORACLE_WORKER_CONTAINER).getVolumeMounts())
                .filteredOn(m -> m.getName().equals(PodLayout.GRADING_VOLUME)).extracting(VolumeMount::getSubPath).containsExactly(OracleContainer.TREES_SUBPATH);
        assertThat(container(pod, RolloutLabels.ORACLE_WORKER_CONTAINER).getVolumeMounts())
                .noneMatch(m -> m.getName().equals(PodLayout.PRISTINE_VOLUME)
                        || m.getName().equals(PodLayout.WORKSPACE_VOLUME) || m.getName().equals(PodLayout.API_TOKEN_VOLUME)
                        || m.getName().equals(PodLayout.RUN_VOLUME));
        var vars = container(pod, RolloutLabels.VERIFIER_CONTAINER).getEnv().stream()
                .collect(Collectors.toMap(e -> e.getName(), e -> e.getValue() == null ? "" : e.getValue()));
        assertThat(vars).containsEntry("CRUCIBLE_ORACLE_SOCKET", OracleContainer.SOCKET).containsEntry("CRUCIBLE_ORACLE_DIR", OracleContainer.MOUNT);
        // five containers (the init one too) share the kubelet's 12 KiB of termination messages: the sidecar's result fits its share
        assertThat(pod.getSpec().getContainers().size() + pod.getSpec().getInitContainers().size()).isEqualTo(5);
        assertThat(vars).containsEntry("CRUCIBLE_RESULT_MAX_BYTES", Integer.toString(12 * 1024 / 5));
        // the init container makes the volume's folders as the sidecar's uid, before the kubelet could make them as root
        assertThat(String.join(" ", pod.getSpec().getInitContainers().get(0).getCommand())).contains("mkdir -p " + OracleWorkerContainerBuilder.INIT_FOLDERS);
    }
}
