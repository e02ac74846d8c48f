package dev.crucible.controllers.rollout;

import dev.crucible.contract.SpecDefaults;
import dev.crucible.controllers.common.SecurityDefaults;
import dev.crucible.controllers.common.OwnerReferences;
import dev.crucible.controllers.common.RolloutLabels;
import static dev.crucible.controllers.common.PodLayout.*;

import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.common.ResourcesSpec;
import dev.crucible.api.v1alpha1.environment.RLEnvironmentSpec;
import dev.crucible.api.v1alpha1.rollout.RolloutMode;
import dev.crucible.contract.AgentExecContainer;
import dev.crucible.contract.GradingContainer;
import dev.crucible.contract.OracleContainer;
import dev.crucible.contract.RunFolder;
import dev.crucible.controllers.config.OperatorSettings;
import dev.crucible.controllers.placement.PlacementBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSchedulingGate;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Desired state of one rollout pod (pure): the agent container, the verifier sidecar, the grading
 * container the sidecar grades in, the oracle-worker container where the isolated oracle runs the code
 * under test ({@link OracleWorkerContainerBuilder}), the init container that fills the shared workspace and its pristine
 * copy, placement, and the safety defaults. No shared process namespace: the agent, the sidecar and the
 * graded code each see only their own container's processes.
 */
public final class RolloutPodBuilder {

    static final int RESTORE_WAIT_SECONDS = 600;
    /** Interactive pods: the agent-exec container's socket, shared with the sidecar only (read-only there). */
    public static final String AGENT_EXEC_VOLUME = AgentExecContainerBuilder.VOLUME;
    /** Interactive pods: the agent-exec container's scratch /tmp (its root file system is read-only). */
    public static final String AGENT_EXEC_TMP_VOLUME = AgentExecContainerBuilder.TMP_VOLUME;
    /** Seconds past the rollout deadline after which the kubelet kills the pod even without the operator. */
    public static final long DEADLINE_GRACE_SECONDS = 60;

    private final OperatorSettings settings;

    public RolloutPodBuilder(OperatorSettings settings) {
        this.settings = settings;
    }

    /**
     * @param gated      hold the pod with the gang scheduling gate until every member exists
     * @param podGroup   name of the gang scheduler's PodGroup, or null where none is installed
     */
    public Pod build(Rollout rollout, RLEnvironment environment, MemberPlan member, List<MemberPlan> members,
                     boolean gated, GangSchedulerSupport.Kind podGroup) {
        RLEnvironmentSpec env = environment.getSpec();
        String name = rollout.getMetadata().getName();
        String podName = member.podName(name);
        String mountPath = env.workspace != null && env.workspace.mountPath != null ? env.workspace.mountPath : SpecDefaults.WORKSPACE_MOUNT_PATH;
        boolean gang = members.size() > 1;

        Map<String, String> labels = RolloutLabels.forRollout(name);
        labels.put(RolloutLabels.ROLE, member.role());
        labels.put(RolloutLabels.INDEX, Integer.toString(member.index()));
        labels.put(RolloutLabels.ENVIRONMENT, RolloutLabels.truncate(environment.getMetadata().getName()));
        if (rollout.getSpec().group != null && rollout.getSpec().group.id != null) {
            labels.put(RolloutLabels.GROUP, rollout.getSpec().group.id);
        }
        if (!gang) {
            labels.put(RolloutLabels.EGRESS, EgressPolicyBuilder.sharedLabel(environment, settings));
        }
        Map<String, String> annotations = new LinkedHashMap<>();
        // The sidecar's rollout.yaml: a downward-API file beside the environment's shared ConfigMap.
        annotations.put(EnvironmentConfigMapBuilder.ROLLOUT_ANNOTATION, EnvironmentConfigMapBuilder.rolloutManifest(rollout));
        if (gang && podGroup != null) {
            GangSchedulerSupport.label(podGroup, name, members.size(), labels, annotations);
        }

        PlacementBuilder.Placement placement = PlacementBuilder.place(member.gpus(),
                member.resources() == null ? null : member.resources().gpuModel, rollout.getSpec().placement, settings);
        List<String> protectedMounts = ProtectedPathMounts.mountable(
                env.verifier == null ? null : env.verifier.protectedPaths);

        boolean interactive = rollout.getSpec().mode == RolloutMode.INTERACTIVE;
        List<Container> containers = new ArrayList<>(List.of(agentContainer(rollout, env, member, members, mountPath, protectedMounts),
                verifierContainer(rollout, member, members, mountPath), gradingContainer(env),
                OracleWorkerContainerBuilder.container(settings, env, mountPath, ContainerResources.grading(settings, env.resources))));
        if (interactive) {
            ResourcesSpec r = member.resources() != null ? member.resources() : env.resources;
            containers.add(AgentExecContainerBuilder.container(settings, env, mountPath, protectedMounts,
                    identity(rollout, member, members), ContainerResources.grading(settings, r)));
        }
        // the kubelet keeps 12 KiB of termination messages per pod, split over every container: the sidecar's result fits its share
        String resultBytes = Integer.toString(dev.crucible.contract.VerifierResultJson.podBudget(containers.size() + 1)); // + the init container
        containers.stream().filter(c -> c.getName().equals(RolloutLabels.VERIFIER_CONTAINER))
                .forEach(c -> c.getEnv().add(new EnvVar("CRUCIBLE_RESULT_MAX_BYTES", resultBytes, null)));
        PodBuilder pod = new PodBuilder()
                .withNewMetadata()
                .withName(podName)
                .withNamespace(rollout.getMetadata().getNamespace())
                .withLabels(labels)
                .withAnnotations(annotations)
                .withOwnerReferences(OwnerReferences.controlledBy(rollout))
                .endMetadata()
                .withNewSpec()
                .withRestartPolicy("Never")
                .withAutomountServiceAccountToken(false)
                .withServiceAccountName(TraceStoreWiring.serviceAccountName(settings))
                .withShareProcessNamespace(false) // graded code never sees the sidecar's or the agent's processes
                .withHostUsers(settings.userNamespaces() ? false : null) // uid 1000 in the pod is an unmapped nobody on the node
                .withEnableServiceLinks(false)
                .withRuntimeClassName(env.sandbox == null ? null : env.sandbox.runtimeClassName)
                .withSecurityContext(SecurityDefaults.pod(settings.runAsUser()))
                .withNodeSelector(placement.nodeSelector().isEmpty() ? null : placement.nodeSelector())
                .withTolerations(placement.tolerations().isEmpty() ? null : placement.tolerations())
                .withAffinity(placement.affinity())
                .withActiveDeadlineSeconds(maxDurationSeconds(rollout) + DEADLINE_GRACE_SECONDS)
                .withVolumes(volumes(environment, interactive))
                .withInitContainers(initContainer(rollout, env, mountPath))
                .withContainers(containers)
                .endSpec();
        if (gang) {
            if (podName.length() <= 63) {
                // hostname.subdomain makes each member resolvable through the headless Service.
                pod.editSpec().withHostname(podName).withSubdomain(RolloutLabels.serviceName(name)).endSpec();
            }
            if (podGroup != null) {
                pod.editSpec().withSchedulerName(GangSchedulerSupport.schedulerName(podGroup, settings)).endSpec();
            }
        }
        if (gated) {
            pod.editSpec().withSchedulingGates(new PodSchedulingGate(RolloutLabels.GANG_GATE)).endSpec();
        }
        return pod.build();
    }

    public static long maxDurationSeconds(Rollout rollout) {
        var limits = rollout.getSpec().limits;
        return limits == null || limits.maxDurationSeconds == null ? SpecDefaults.MAX_DURATION_SECONDS : limits.maxDurationSeconds;
    }

    private List<Volume> volumes(RLEnvironment environment, boolean interactive) {
        RLEnvironmentSpec env = environment.getSpec();
        String sizeLimit = env.workspace != null && env.workspace.sizeLimit != null ? env.workspace.sizeLimit
                : env.resources != null ? env.resources.ephemeralStorage : null;
        List<Volume> volumes = new ArrayList<>();
        volumes.add(new VolumeBuilder().withName(WORKSPACE_VOLUME).withNewEmptyDir()
                .withSizeLimit(sizeLimit == null ? null : new Quantity(sizeLimit)).endEmptyDir().build());
        volumes.add(new VolumeBuilder().withName(PRISTINE_VOLUME).withNewEmptyDir()
                .withSizeLimit(sizeLimit == null ? null : new Quantity(sizeLimit)).endEmptyDir().build());
        volumes.add(new VolumeBuilder().withName(RUN_VOLUME).withNewEmptyDir().withMedium("Memory")
                .withSizeLimit(new Quantity("64Mi")).endEmptyDir().build());
        volumes.add(new VolumeBuilder().withName(VERIFIER_TMP_VOLUME).withNewEmptyDir()
                .withSizeLimit(sizeLimit == null ? null : new Quantity(sizeLimit)).endEmptyDir().build());
        volumes.add(new VolumeBuilder().withName(GRADING_VOLUME).withNewEmptyDir()
                .withSizeLimit(sizeLimit == null ? null : new Quantity(sizeLimit)).endEmptyDir().build());
        volumes.add(new VolumeBuilder().withName(GRADING_TMP_VOLUME).withNewEmptyDir()
                .withSizeLimit(sizeLimit == null ? null : new Quantity(sizeLimit)).endEmptyDir().build());
        volumes.addAll(OracleWorkerContainerBuilder.volumes(sizeLimit));
        if (interactive) volumes.addAll(AgentExecContainerBuilder.volumes(sizeLimit));
        volumes.addAll(TraceStoreWiring.volumes(settings));
        volumes.add(new VolumeBuilder().withName(API_TOKEN_VOLUME).withNewSecret()
                .withSecretName(EnvApiTokenSecretBuilder.NAME).withDefaultMode(0440).endSecret().build());
        // The environment version's shared ConfigMap and this Rollout's spec (from the pod's annotation) as one directory.
        volumes.add(new VolumeBuilder().withName(CONFIG_VOLUME).withNewProjected().withDefaultMode(0444)
                .addNewSource().withNewConfigMap().withName(EnvironmentConfigMapBuilder.build(environment).getMetadata().getName())
                .endConfigMap().endSource()
                .addNewSource().withNewDownwardAPI().addNewItem().withPath(EnvironmentConfigMapBuilder.ROLLOUT_KEY)
                .withNewFieldRef().withFieldPath("metadata.annotations['" + EnvironmentConfigMapBuilder.ROLLOUT_ANNOTATION + "']")
                .endFieldRef().endItem().endDownwardAPI().endSource()
                .endProjected().build());
        return volumes;
    }

    /**
     * Copies the image's workspace into the shared volume, as a fresh one-commit task repository
     * ({@link WorkspaceInitScript}), and into the pristine copy grading trusts.
     * A branch ({@code spec.restoreFrom}) gets its workspace from the snapshot instead: the init
     * container waits until the node's snapshot agent has extracted it (and the patches) and left
     * {@link #RESTORED_MARKER}, so the agent never starts on an empty workspace.
     */
    private Container initContainer(Rollout rollout, RLEnvironmentSpec env, String mountPath) {
        String image = env.image != null ? env.image : settings.verifierImage();
        String fill = rollout.getSpec().restoreFrom == null
                ? WorkspaceInitScript.fill(env.source == null ? null : env.source.history)
                : WorkspaceInitScript.pristineOnly() + "; i=0; "
                        + "until [ -f /mnt/workspace/" + RESTORED_MARKER + " ]; do i=$((i+1)); "
                        + "if [ $i -gt " + RESTORE_WAIT_SECONDS + " ]; then echo 'the snapshot workspace did not arrive' >&2; exit 1; fi; "
                        + "sleep 1; done";
        return new ContainerBuilder()
                .withName(RolloutLabels.INIT_CONTAINER)
                .withImage(image)
                // the oracle volume's folders, made here as the sidecar's uid: the kubelet would make a missing
                // sub-path as root when it starts the oracle-worker container, and the sidecar could not write there
                .withCommand("sh", "-c", "set -e; mkdir -p " + OracleWorkerContainerBuilder.INIT_FOLDERS + "; " + fill)
                .withEnv(new EnvVar("SRC", mountPath, null))
                .withVolumeMounts(mount(WORKSPACE_VOLUME, "/mnt/workspace", false),
                        mount(PRISTINE_VOLUME, "/mnt/pristine", false),
                        mount(OracleWorkerContainerBuilder.VOLUME, OracleWorkerContainerBuilder.INIT_MOUNT, false),
                        mount(GRADING_VOLUME, OracleWorkerContainerBuilder.INIT_GRADING_MOUNT, false))
                .withResources(ContainerResources.guaranteed("100m", "128Mi", 0))
                .withSecurityContext(SecurityDefaults.container(true))
                .build();
    }

    private Container agentContainer(Rollout rollout, RLEnvironmentSpec env, MemberPlan member,
                                     List<MemberPlan> members, String mountPath, List<String> protectedMounts) {
        var spec = rollout.getSpec();
        boolean embedded = spec.mode != RolloutMode.INTERACTIVE;
        String image = embedded && spec.agent != null && spec.agent.image != null ? spec.agent.image
                : env.image != null ? env.image : settings.verifierImage();
        List<String> command = embedded && spec.agent != null && spec.agent.command != null
                ? agentWrapper(spec.agent.command) : member.command();
        List<EnvVar> vars = new ArrayList<>();
        if (env.setup != null && env.setup.env != null) {
            env.setup.env.forEach((k, v) -> vars.add(new EnvVar(k, v, null)));
        }
        if (embedded && spec.agent != null && spec.agent.env != null) {
            spec.agent.env.forEach(e -> vars.add(new EnvVar(e.name, e.value, null)));
        }
        vars.addAll(identity(rollout, member, members));
        // No CRUCIBLE_ENV_API: the environment API needs the token this container never gets.
        vars.add(new EnvVar("CRUCIBLE_TASK_FILE", TASK_FILE, null));

        List<VolumeMount> mounts = new ArrayList<>();
        mounts.add(mount(WORKSPACE_VOLUME, mountPath, false));
        mounts.add(mount(RUN_VOLUME, RUN_PATH, false));
        mounts.add(new VolumeMountBuilder().withName(CONFIG_VOLUME).withMountPath(TASK_FILE)
                .withSubPath(EnvironmentConfigMapBuilder.TASK_KEY).withReadOnly(true).build());
        for (String path : protectedMounts) {
            // The pristine copy, read-only, over the agent's view of the protected path.
            mounts.add(new VolumeMountBuilder().withName(PRISTINE_VOLUME)
                    .withMountPath(mountPath.replaceAll("/+$", "") + "/" + path)
                    .withSubPath(path).withReadOnly(true).build());
        }
        ResourcesSpec r = member.resources();
        return new ContainerBuilder()
                .withName(RolloutLabels.AGENT_CONTAINER)
                .withImage(image)
                .withCommand(command == null || command.isEmpty() ? null : command)
                .withWorkingDir(mountPath)
                .withEnv(vars)
                .withVolumeMounts(mounts)
                .withResources(ContainerResources.guaranteed(r == null ? null : r.cpu, r == null ? null : r.memory, member.gpus()))
                .withSecurityContext(SecurityDefaults.container(false))
                .withTerminationMessagePolicy("FallbackToLogsOnError")
                .build();
    }

    /** The agent command inside the run folder's wrapper: it starts once the sidecar watches, records its exit. */
    static List<String> agentWrapper(List<String> command) {
        return RunFolder.agentWrapper(command);
    }

    private Container verifierContainer(Rollout rollout, MemberPlan member, List<MemberPlan> members, String mountPath) {
        List<EnvVar> vars = new ArrayList<>(identity(rollout, member, members));
        vars.add(new EnvVar("CRUCIBLE_ENVIRONMENT_FILE", CONFIG_PATH + "/" + EnvironmentConfigMapBuilder.ENVIRONMENT_KEY, null));
        vars.add(new EnvVar("CRUCIBLE_ROLLOUT_FILE", CONFIG_PATH + "/" + EnvironmentConfigMapBuilder.ROLLOUT_KEY, null));
        vars.add(new EnvVar("CRUCIBLE_WORKSPACE", mountPath, null));
        vars.add(new EnvVar("CRUCIBLE_PRISTINE", PRISTINE_PATH, null));
        vars.add(new EnvVar("CRUCIBLE_RUN_DIR", RUN_PATH, null));
        vars.add(new EnvVar("CRUCIBLE_PORT", Integer.toString(settings.verifierPort()), null));
        vars.add(new EnvVar("CRUCIBLE_RESULT_FILE", TERMINATION_LOG, null));
        vars.add(new EnvVar("CRUCIBLE_MAX_DURATION_SECONDS", Long.toString(maxDurationSeconds(rollout)), null));
        if (rollout.getMetadata().getCreationTimestamp() != null) {
            // the operator's own deadline, so the sidecar's result (and its findings) arrives when it is decided
            vars.add(new EnvVar("CRUCIBLE_DEADLINE_AT", Instant.parse(rollout.getMetadata().getCreationTimestamp())
                    .plusSeconds(maxDurationSeconds(rollout)).toString(), null));
        }
        var limits = rollout.getSpec().limits;
        if (limits != null && limits.maxTurns != null) {
            vars.add(new EnvVar("CRUCIBLE_MAX_TURNS", limits.maxTurns.toString(), null));
        }
        vars.add(new EnvVar("CRUCIBLE_MODE", rollout.getSpec().mode == RolloutMode.INTERACTIVE ? "interactive" : "embedded", null));
        // a path, never the token itself: variables show in the pod spec
        vars.add(new EnvVar("CRUCIBLE_API_TOKEN_FILE", API_TOKEN_PATH + "/" + EnvApiTokenSecretBuilder.TOKEN_KEY, null));
        vars.add(new EnvVar("CRUCIBLE_GRADING_SOCKET", GradingContainer.SOCKET, null));
        vars.add(new EnvVar("CRUCIBLE_GRADING_DIR", GradingContainer.TREES, null));
        vars.add(new EnvVar("CRUCIBLE_ORACLE_SOCKET", OracleContainer.SOCKET, null));
        vars.add(new EnvVar("CRUCIBLE_ORACLE_DIR", OracleContainer.MOUNT, null));
        boolean interactive = rollout.getSpec().mode == RolloutMode.INTERACTIVE;
        if (interactive) vars.add(new EnvVar("CRUCIBLE_AGENT_EXEC_SOCKET", AgentExecContainer.SOCKET, null));
        List<VolumeMount> mounts = new ArrayList<>(List.of(mount(WORKSPACE_VOLUME, mountPath, false),
                mount(PRISTINE_VOLUME, PRISTINE_PATH, true),
                mount(CONFIG_VOLUME, CONFIG_PATH, true),
                mount(RUN_VOLUME, RUN_PATH, false),
                mount(VERIFIER_TMP_VOLUME, "/tmp", false),
                mount(GRADING_VOLUME, GradingContainer.MOUNT, false),
                mount(API_TOKEN_VOLUME, API_TOKEN_PATH, true),
                OracleWorkerContainerBuilder.sidecarMount()));
        if (interactive) mounts.add(mount(AGENT_EXEC_VOLUME, AgentExecContainer.MOUNT, false));
        mounts.addAll(TraceStoreWiring.sidecarMounts(settings));
        vars.addAll(TraceStoreWiring.sidecarEnv(settings));
        return new ContainerBuilder()
                .withName(RolloutLabels.VERIFIER_CONTAINER)
                .withImage(settings.verifierImage())
                .withEnv(vars)
                .addNewPort().withName("env-api").withContainerPort(settings.verifierPort()).withProtocol("TCP").endPort()
                .withVolumeMounts(mounts)
                .withResources(ContainerResources.verifier(settings))
                .withSecurityContext(SecurityDefaults.container(true))
                // The result contract: the sidecar's last act is writing its result JSON here (≤ 4 KiB).
                .withTerminationMessagePath(TERMINATION_LOG)
                .withTerminationMessagePolicy("File")
                .build();
    }

    /**
     * Runs only what the sidecar asks it to grade, from the environment's image (its toolchain, its
     * python3), under another uid: the grading volume and its own /tmp, the runner script; no workspace,
     * no token, no run folder, no configuration but the script, no environment variables of the rollout.
     * It may use up to the environment's resources (grading runs the environment's tests) but requests only
     * the sidecar's share: requesting the environment's twice would double every rollout pod's footprint
     * (a 33-CPU member no longer fits a 64-CPU node), and grading starts once the agent has ended. Its termination message
     * is its own and never read: the operator reads only the verifier's.
     */
    private Container gradingContainer(RLEnvironmentSpec env) {
        String image = env.image != null ? env.image : settings.verifierImage();
        SecurityContext security = SecurityDefaults.container(true);
        security.setRunAsUser(settings.runAsUser() + GRADER_UID_OFFSET);
        security.setRunAsGroup(settings.runAsUser());
        ResourcesSpec r = env.resources;
        return new ContainerBuilder()
                .withName(RolloutLabels.GRADING_CONTAINER)
                .withImage(image)
                .withCommand(GradingContainer.command())
                .withWorkingDir("/")
                .withVolumeMounts(mount(GRADING_VOLUME, GradingContainer.MOUNT, false),
                        mount(GRADING_TMP_VOLUME, "/tmp", false),
                        OracleWorkerContainerBuilder.gradingMount(),
                        new VolumeMountBuilder().withName(CONFIG_VOLUME).withMountPath(GradingContainer.SCRIPT_PATH)
                                .withSubPath(GradingContainer.CONFIG_KEY).withReadOnly(true).build())
                .withResources(ContainerResources.grading(settings, r))
                .withSecurityContext(security)
                .withTerminationMessagePolicy("File")
                .build();
    }

    /** Who this pod is within the rollout; the same for agent and sidecar. */
    private List<EnvVar> identity(Rollout rollout, MemberPlan member, List<MemberPlan> members) {
        String name = rollout.getMetadata().getName();
        List<EnvVar> vars = new ArrayList<>();
        vars.add(new EnvVar("CRUCIBLE_ROLLOUT", name, null));
        vars.add(new EnvVar("CRUCIBLE_NAMESPACE", rollout.getMetadata().getNamespace(), null));
        vars.add(new EnvVar("CRUCIBLE_ROLE", member.role(), null));
        vars.add(new EnvVar("CRUCIBLE_INDEX", Integer.toString(member.index()), null));
        vars.add(new EnvVar("CRUCIBLE_LEADER", Boolean.toString(member.leader()), null));
        vars.add(new EnvVar("CRUCIBLE_MEMBERS", Integer.toString(members.size()), null));
        if (members.size() > 1) {
            MemberPlan leader = members.get(0);
            vars.add(new EnvVar("CRUCIBLE_RENDEZVOUS", leader.podName(name) + "." + RolloutLabels.serviceName(name)
                    + ":" + settings.rendezvousPort(), null));
        }
        return vars;
    }

    static VolumeMount mount(String volume, String path, boolean readOnly) {
        return new VolumeMountBuilder().withName(volume).withMountPath(path).withReadOnly(readOnly ? true : null).build();
    }
}
