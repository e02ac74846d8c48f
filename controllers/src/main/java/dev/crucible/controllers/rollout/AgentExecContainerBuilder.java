package dev.crucible.controllers.rollout;

import dev.crucible.controllers.common.SecurityDefaults;
import dev.crucible.controllers.common.RolloutLabels;
import dev.crucible.controllers.common.PodLayout;
import static dev.crucible.controllers.rollout.RolloutPodBuilder.mount;

import dev.crucible.api.v1alpha1.environment.RLEnvironmentSpec;
import dev.crucible.contract.AgentExecContainer;
import dev.crucible.contract.GradingContainer;
import dev.crucible.controllers.config.OperatorSettings;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import java.util.ArrayList;
import java.util.List;

/**
 * The agent-exec container of an interactive rollout pod: it runs the trainer's bash steps for the
 * sidecar (the grading runner in agent mode, contract {@link AgentExecContainer}), so they never run
 * in the sidecar's container beside its token, run folder, result file and findings. The environment's
 * image as the agent's uid, with the agent's view: the workspace (protected paths read-only from the
 * pristine copy), the task file, the agent's variables, a scratch /tmp as HOME; a read-only root, no
 * capabilities, no token, no run folder, no grading or pristine volume, and the socket's volume
 * read-only (connecting needs no write access). Like the grading container it may use the member's
 * CPU and memory but requests only the sidecar's share, and gets no GPU (a second one would be allocated).
 */
final class AgentExecContainerBuilder {
    static final String VOLUME = "crucible-agent-exec";
    static final String TMP_VOLUME = "crucible-agent-exec-tmp";

    private AgentExecContainerBuilder() {}

    /** The socket's volume (the sidecar's and this container's only) and the scratch volume. */
    static List<Volume> volumes(String sizeLimit) {
        return List.of(
                new VolumeBuilder().withName(VOLUME).withNewEmptyDir().withMedium("Memory")
                        .withSizeLimit(new Quantity("1Mi")).endEmptyDir().build(),
                new VolumeBuilder().withName(TMP_VOLUME).withNewEmptyDir()
                        .withSizeLimit(sizeLimit == null ? null : new Quantity(sizeLimit)).endEmptyDir().build());
    }

    static Container container(OperatorSettings settings, RLEnvironmentSpec env, String mountPath, List<String> protectedMounts,
                               List<EnvVar> identity, ResourceRequirements resources) {
        List<EnvVar> vars = new ArrayList<>();
        java.util.Map<String, String> setup = env.setup != null && env.setup.env != null ? env.setup.env : java.util.Map.of();
        for (String k : List.of("HOME", "TMPDIR")) { // the image's HOME is likely on the read-only root
            if (!setup.containsKey(k)) vars.add(new EnvVar(k, AgentExecContainer.SCRATCH, null));
        }
        setup.forEach((k, v) -> vars.add(new EnvVar(k, v, null)));
        vars.addAll(identity);
        vars.add(new EnvVar("CRUCIBLE_TASK_FILE", PodLayout.TASK_FILE, null));
        List<VolumeMount> mounts = new ArrayList<>();
        mounts.add(mount(PodLayout.WORKSPACE_VOLUME, mountPath, false));
        mounts.add(new VolumeMountBuilder().withName(PodLayout.CONFIG_VOLUME).withMountPath(PodLayout.TASK_FILE)
                .withSubPath(EnvironmentConfigMapBuilder.TASK_KEY).withReadOnly(true).build());
        for (String path : protectedMounts) {
            mounts.add(new VolumeMountBuilder().withName(PodLayout.PRISTINE_VOLUME)
                    .withMountPath(mountPath.replaceAll("/+$", "") + "/" + path)
                    .withSubPath(path).withReadOnly(true).build());
        }
        mounts.add(mount(VOLUME, AgentExecContainer.MOUNT, true));
        mounts.add(mount(TMP_VOLUME, AgentExecContainer.SCRATCH, false));
        mounts.add(new VolumeMountBuilder().withName(PodLayout.CONFIG_VOLUME).withMountPath(GradingContainer.SCRIPT_PATH)
                .withSubPath(GradingContainer.CONFIG_KEY).withReadOnly(true).build());
        SecurityContext security = SecurityDefaults.container(true);
        security.setRunAsUser(settings.runAsUser()); // the agent's uid: the workspace is its to write
        security.setRunAsGroup(settings.runAsUser());
        return new ContainerBuilder()
                .withName(RolloutLabels.AGENT_EXEC_CONTAINER)
                .withImage(env.image != null ? env.image : settings.verifierImage())
                .withCommand(AgentExecContainer.command())
                .withWorkingDir(mountPath)
                .withEnv(vars)
                .withVolumeMounts(mounts)
                .withResources(resources)
                .withSecurityContext(security)
                .withTerminationMessagePolicy("File")
                .build();
    }
}
