package dev.crucible.controllers.rollout;

import static dev.crucible.controllers.rollout.RolloutPodBuilder.mount;

import dev.crucible.api.v1alpha1.environment.RLEnvironmentSpec;
import dev.crucible.contract.GradingContainer;
import dev.crucible.contract.OracleContainer;
import dev.crucible.controllers.common.PodLayout;
import dev.crucible.controllers.common.RolloutLabels;
import dev.crucible.controllers.common.SecurityDefaults;
import dev.crucible.controllers.config.OperatorSettings;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import java.util.List;

/**
 * The oracle-worker container (issue 33, contract {@link OracleContainer}): the isolated oracle's untrusted
 * workers, which run the code under test apart from the trusted grading process. A pod's containers cannot make
 * a bubblewrap box under RuntimeDefault seccomp (no new user namespace), so the box is this container: the
 * environment's image, the grading container's uid (the scratch folder both sides share holds 0700 folders
 * pytest makes), no capabilities, a read-only root, its own PID namespace. It mounts only the oracle volume's
 * FIFO-and-scratch folder, the grading volume's folder of the sidecar's copies of the grading trees without their
 * trusted test files (read-only, where the grading container sees the real trees), the spawner's socket folder, its own /tmp, the two scripts,
 * and an empty read-only folder over the workspace's place, so the image's own copy of the task's files (its
 * tests) is not shown either. Nothing else of the grading volume; no pristine, workspace, run or token volume; no
 * variables of the rollout.
 * Like the grading container it may use the environment's CPU and memory but requests only the sidecar's share.
 */
final class OracleWorkerContainerBuilder {
    static final String VOLUME = "crucible-oracle";
    static final String TMP_VOLUME = "crucible-oracle-tmp";
    /** An empty sub-path of the oracle volume, mounted read-only over the workspace's place. */
    static final String VOID_SUBPATH = "void";
    /** Where the init container mounts the oracle volume and the grading volume to make their folders. */
    static final String INIT_MOUNT = "/mnt/oracle";
    static final String INIT_GRADING_MOUNT = "/mnt/grading";
    /** The folders the init container makes (shell words). */
    static final String INIT_FOLDERS = String.join(" ", java.util.stream.Stream.concat(java.util.stream.Stream.of(OracleContainer.IO_SUBPATH,
            OracleContainer.CTL_SUBPATH, VOID_SUBPATH).map(d -> INIT_MOUNT + "/" + d), java.util.stream.Stream.of(INIT_GRADING_MOUNT + "/"
            + OracleContainer.TREES_SUBPATH)).toList());

    private OracleWorkerContainerBuilder() {}

    static List<Volume> volumes(String sizeLimit) {
        Quantity size = sizeLimit == null ? null : new Quantity(sizeLimit);
        return List.of(new VolumeBuilder().withName(VOLUME).withNewEmptyDir().withSizeLimit(size).endEmptyDir().build(),
                new VolumeBuilder().withName(TMP_VOLUME).withNewEmptyDir().withSizeLimit(size).endEmptyDir().build());
    }

    /** The sidecar's mount: the whole volume. */
    static VolumeMount sidecarMount() {
        return mount(VOLUME, OracleContainer.MOUNT, false);
    }

    /** The grading container's mount: the FIFO-and-scratch folder only, at the path the workers see it. */
    static VolumeMount gradingMount() {
        return sub(OracleContainer.IO_SUBPATH, OracleContainer.IO, false);
    }

    static Container container(OperatorSettings settings, RLEnvironmentSpec env, String workspaceMount, ResourceRequirements resources) {
        SecurityContext security = SecurityDefaults.container(true);
        security.setRunAsUser(settings.runAsUser() + PodLayout.GRADER_UID_OFFSET);
        security.setRunAsGroup(settings.runAsUser());
        List<VolumeMount> mounts = List.of(
                sub(OracleContainer.IO_SUBPATH, OracleContainer.IO, false),
                // only the copies' folder of the grading volume: not the trees, results, support files or socket
                new VolumeMountBuilder().withName(PodLayout.GRADING_VOLUME).withMountPath(GradingContainer.TREES)
                        .withSubPath(OracleContainer.TREES_SUBPATH).withReadOnly(true).build(),
                sub(OracleContainer.CTL_SUBPATH, OracleContainer.CTL, true), // connecting needs no write access
                sub(VOID_SUBPATH, workspaceMount, true),
                mount(TMP_VOLUME, "/tmp", false),
                new VolumeMountBuilder().withName(PodLayout.CONFIG_VOLUME).withMountPath(OracleContainer.SCRIPT_PATH)
                        .withSubPath(OracleContainer.CONFIG_KEY).withReadOnly(true).build(),
                new VolumeMountBuilder().withName(PodLayout.CONFIG_VOLUME).withMountPath(GradingContainer.SCRIPT_PATH)
                        .withSubPath(GradingContainer.CONFIG_KEY).withReadOnly(true).build());
        return new ContainerBuilder()
                .withName(RolloutLabels.ORACLE_WORKER_CONTAINER)
                .withImage(env.image != null ? env.image : settings.verifierImage())
                .withCommand(OracleContainer.command())
                .withWorkingDir("/")
                .withVolumeMounts(mounts)
                .withResources(resources)
                .withSecurityContext(security)
                .withTerminationMessagePolicy("File")
                .build();
    }

    private static VolumeMount sub(String subPath, String path, boolean readOnly) {
        return new VolumeMountBuilder().withName(VOLUME).withMountPath(path).withSubPath(subPath).withReadOnly(readOnly ? true : null).build();
    }
}
