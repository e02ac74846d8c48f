package dev.crucible.controllers.rollout;

import dev.crucible.controllers.common.RolloutLabels;
import dev.crucible.controllers.common.PodLayout;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.contract.GradingContainer;
import dev.crucible.controllers.Fixtures;
import dev.crucible.controllers.config.OperatorSettings;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.util.List;
import org.junit.jupiter.api.Test;

class RolloutPodBuilderTest {

    private final OperatorSettings settings = OperatorSettings.defaults().withVerifierImage("verifier:test");
    private final RolloutPodBuilder builder = new RolloutPodBuilder(settings);

    private Pod single(RLEnvironment env, Rollout rollout) {
        List<MemberPlan> plan = TopologyPlanner.plan(env.getSpec());
        return builder.build(rollout, env, plan.get(0), plan, false, null);
    }

    private static Container container(Pod pod, String name) {
        return pod.getSpec().getContainers().stream().filter(c -> c.getName().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void verifierRequestsAndLimitsAreTheConfiguredOnes() {
        OperatorSettings d = OperatorSettings.defaults();
        OperatorSettings chart = new OperatorSettings("verifier:test", "100m", "128Mi", d.verifierPort(), d.gpuNodeSelector(),
                d.gpuTolerations(), d.gpuNodeLabel(), d.runAsUser(), d.gangSchedulerName(), d.rendezvousPort(), null, "512Mi");
        RLEnvironment env = Fixtures.cpuEnvironment("env");
        List<MemberPlan> plan = TopologyPlanner.plan(env.getSpec());
        Pod pod = new RolloutPodBuilder(chart).build(Fixtures.rollout("r1", "env"), env, plan.get(0), plan, false, null);
        var r = container(pod, "verifier").getResources();
        assertThat(r.getRequests()).containsOnlyKeys("cpu", "memory");
        assertThat(r.getRequests().get("cpu").toString()).isEqualTo("100m");
        assertThat(r.getRequests().get("memory").toString()).isEqualTo("128Mi");
        assertThat(r.getLimits()).containsOnlyKeys("memory");
        assertThat(r.getLimits().get("memory").toString()).isEqualTo("512Mi");
    }

    @Test
    void podReadsTheSharedObjectsAndCarriesItsOwnSpec() {
        RLEnvironment env = Fixtures.cpuEnvironment("env");
        Pod pod = single(env, Fixtures.rollout("r1", "env"));
        // rollout.yaml: the Rollout's spec in an annotation, read through the downward API beside the shared ConfigMap
        assertThat(pod.getMetadata().getAnnotations().get(EnvironmentConfigMapBuilder.ROLLOUT_ANNOTATION))
                .contains("kind: Rollout").contains("name: r1").contains("--go");
        var config = pod.getSpec().getVolumes().stream().filter(v -> v.getName().equals(PodLayout.CONFIG_VOLUME)).findFirst().orElseThrow();
        assertThat(config.getProjected().getSources()).hasSize(2);
        assertThat(config.getProjected().getSources().get(0).getConfigMap().getName())
                .isEqualTo(EnvironmentConfigMapBuilder.build(env).getMetadata().getName());
        assertThat(config.getProjected().getSources().get(1).getDownwardAPI().getItems()).singleElement().satisfies(i -> {
            assertThat(i.getPath()).isEqualTo(EnvironmentConfigMapBuilder.ROLLOUT_KEY);
            assertThat(i.getFieldRef().getFieldPath()).isEqualTo("metadata.annotations['crucible.dev/rollout-yaml']");
        });
        // a branch's patches (up to 64 MiB in all) are the snapshot agent's, not in the 256 KiB of annotations
        Rollout branch = Fixtures.rollout("r2", "env");
        var patch = new dev.crucible.api.v1alpha1.rollout.PatchSpec();
        patch.path = "big.txt";
        patch.content = "x".repeat(300_000);
        branch.getSpec().patches = List.of(patch);
        assertThat(single(env, branch).getMetadata().getAnnotations().get(EnvironmentConfigMapBuilder.ROLLOUT_ANNOTATION))
                .contains("name: r2").doesNotContain("patches").hasSizeLessThan(4096);
        var token = pod.getSpec().getVolumes().stream().filter(v -> v.getName().equals(PodLayout.API_TOKEN_VOLUME)).findFirst().orElseThrow();
        assertThat(token.getSecret().getSecretName()).isEqualTo(EnvApiTokenSecretBuilder.NAME);
        // the shared egress policy selects a single pod; a gang's members have their own policy instead
        assertThat(pod.getMetadata().getLabels()).containsEntry(RolloutLabels.EGRESS, EgressPolicyBuilder.sharedLabel(env, OperatorSettings.defaults()));
        RLEnvironment gangEnv = Fixtures.twoNodeEnvironment("gang", 1);
        List<MemberPlan> plan = TopologyPlanner.plan(gangEnv.getSpec());
        Pod member = builder.build(Fixtures.rollout("g1", "gang"), gangEnv, plan.get(0), plan, true, null);
        assertThat(member.getMetadata().getLabels()).doesNotContainKey(RolloutLabels.EGRESS);
        assertThat(EgressPolicyBuilder.build(Fixtures.rollout("g1", "gang"), gangEnv, true, OperatorSettings.defaults()).getSpec().getPodSelector()
                .getMatchLabels()).containsEntry(RolloutLabels.ROLLOUT, "g1");
    }

    @Test
    void everyPodCarriesTheSafetyDefaults() {
        Pod pod = single(Fixtures.cpuEnvironment("env"), Fixtures.rollout("r1", "env"));
        assertThat(pod.getSpec().getAutomountServiceAccountToken()).isFalse();
        assertThat(pod.getSpec().getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(pod.getSpec().getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
        assertThat(pod.getSpec().getRuntimeClassName()).isEqualTo("gvisor");
        assertThat(pod.getSpec().getRestartPolicy()).isEqualTo("Never");
        assertThat(pod.getSpec().getHostUsers()).as("the host's user namespace by default (memory branches restore)").isNull();
        Pod hardened = new RolloutPodBuilder(settings.withUserNamespaces(true)).build(Fixtures.rollout("r1", "env"),
                Fixtures.cpuEnvironment("env"), TopologyPlanner.plan(Fixtures.cpuEnvironment("env").getSpec()).get(0),
                TopologyPlanner.plan(Fixtures.cpuEnvironment("env").getSpec()), false, null);
        assertThat(hardened.getSpec().getHostUsers()).as("rollouts.userNamespaces: its own user namespace").isFalse();
        List<Container> all = new java.util.ArrayList<>(pod.getSpec().getContainers());
        all.addAll(pod.getSpec().getInitContainers());
        for (Container c : all) {
            assertThat(c.getSecurityContext().getAllowPrivilegeEscalation()).as(c.getName()).isFalse();
            assertThat(c.getSecurityContext().getCapabilities().getDrop()).as(c.getName()).containsExactly("ALL");
            assertThat(c.getSecurityContext().getRunAsNonRoot()).as(c.getName()).isTrue();
        }
    }

    @Test
    void userNamespacesOffIsTheKubernetesDefault() {
        RLEnvironment env = Fixtures.cpuEnvironment("env");
        List<MemberPlan> plan = TopologyPlanner.plan(env.getSpec());
        Pod pod = new RolloutPodBuilder(settings.withUserNamespaces(false)).build(Fixtures.rollout("r1", "env"), env, plan.get(0), plan, false, null);
        assertThat(pod.getSpec().getHostUsers()).as("unset: the host's user namespace, the Kubernetes default").isNull();
        assertThat(pod.getSpec().getSecurityContext().getRunAsNonRoot()).isTrue();
    }

    @Test
    void namesLabelsAndOwnerAreDeterministic() {
        Pod pod = single(Fixtures.cpuEnvironment("env"), Fixtures.rollout("r1", "env"));
        assertThat(pod.getMetadata().getName()).isEqualTo("r1-main-0");
        assertThat(pod.getMetadata().getLabels()).containsEntry(RolloutLabels.ROLLOUT, "r1")
                .containsEntry(RolloutLabels.ROLE, "main").containsEntry(RolloutLabels.INDEX, "0")
                .containsEntry(RolloutLabels.MANAGED_BY, RolloutLabels.MANAGED_BY_VALUE);
        assertThat(pod.getMetadata().getOwnerReferences()).singleElement().satisfies(o -> {
            assertThat(o.getUid()).isEqualTo("uid-r1");
            assertThat(o.getController()).isTrue();
            assertThat(o.getKind()).isEqualTo("Rollout");
        });
    }

    @Test
    void verifierSidecarGetsTheResultContractAndTheEnvironmentFile() {
        Pod pod = single(Fixtures.cpuEnvironment("env"), Fixtures.rollout("r1", "env"));
        Container verifier = container(pod, RolloutLabels.VERIFIER_CONTAINER);
        assertThat(verifier.getImage()).isEqualTo("verifier:test");
        assertThat(verifier.getTerminationMessagePath()).isEqualTo("/dev/termination-log");
        assertThat(verifier.getTerminationMessagePolicy()).isEqualTo("File");
        assertThat(verifier.getEnv()).anySatisfy(e -> {
            assertThat(e.getName()).isEqualTo("CRUCIBLE_ENVIRONMENT_FILE");
            assertThat(e.getValue()).isEqualTo("/crucible/config/environment.yaml");
        });
        assertThat(verifier.getVolumeMounts()).extracting(VolumeMount::getName)
                .contains(PodLayout.WORKSPACE_VOLUME, PodLayout.CONFIG_VOLUME);
        assertThat(verifier.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    }

    @Test
    void agentSeesWorkspaceAndTaskButNotTheVerifierConfig() {
        Pod pod = single(Fixtures.cpuEnvironment("env"), Fixtures.rollout("r1", "env"));
        Container agent = container(pod, RolloutLabels.AGENT_CONTAINER);
        // The agent command runs inside a wrapper that records its exit status for the sidecar.
        assertThat(agent.getCommand()).startsWith("/bin/sh", "-c").endsWith("crucible-agent", "agent", "--go");
        assertThat(agent.getCommand().get(2)).contains("/crucible/run/agent.exit")
                .as("it starts the agent only once the sidecar's monitor watches").contains("/crucible/run/episode.started");
        assertThat(agent.getVolumeMounts()).noneMatch(m -> m.getName().equals(PodLayout.VERIFIER_TMP_VOLUME));
        assertThat(agent.getWorkingDir()).isEqualTo("/workspace");
        assertThat(agent.getVolumeMounts()).anySatisfy(m -> {
            assertThat(m.getMountPath()).isEqualTo("/crucible/task.md");
            assertThat(m.getSubPath()).isEqualTo("task.md");
        });
        assertThat(agent.getVolumeMounts()).noneMatch(m -> m.getMountPath().equals(PodLayout.CONFIG_PATH));
    }

    /** The environment API's token: the sidecar reads it from the namespace's Secret; the agent has no way to it. */
    @Test
    void onlyTheSidecarMountsTheApiTokenSecret() {
        Pod pod = single(Fixtures.cpuEnvironment("env"), Fixtures.rollout("r1", "env"));
        assertThat(pod.getSpec().getVolumes()).anySatisfy(v -> {
            assertThat(v.getName()).isEqualTo(PodLayout.API_TOKEN_VOLUME);
            assertThat(v.getSecret().getSecretName()).isEqualTo("crucible-env-api");
        });
        Container verifier = container(pod, RolloutLabels.VERIFIER_CONTAINER);
        assertThat(verifier.getVolumeMounts()).anySatisfy(m -> {
            assertThat(m.getName()).isEqualTo(PodLayout.API_TOKEN_VOLUME);
            assertThat(m.getReadOnly()).isTrue();
        });
        assertThat(verifier.getEnv()).anySatisfy(e -> {
            assertThat(e.getName()).isEqualTo("CRUCIBLE_API_TOKEN_FILE");
            assertThat(e.getValue()).isEqualTo("/crucible/secrets/env-api/token");
        });
        for (Container c : pod.getSpec().getContainers()) {
            if (c.getName().equals(RolloutLabels.VERIFIER_CONTAINER)) continue;
            assertThat(c.getVolumeMounts()).as(c.getName()).noneMatch(m -> m.getName().equals(PodLayout.API_TOKEN_VOLUME));
            assertThat(c.getEnv()).as(c.getName()).noneMatch(e -> e.getValueFrom() != null && e.getValueFrom().getSecretKeyRef() != null);
            assertThat(c.getEnvFrom()).as(c.getName()).isNullOrEmpty();
        }
        assertThat(pod.getSpec().getInitContainers()).allSatisfy(c ->
                assertThat(c.getVolumeMounts()).noneMatch(m -> m.getName().equals(PodLayout.API_TOKEN_VOLUME)));
        // one token volume only, so no other container can reach it through a shared process namespace either
        assertThat(pod.getSpec().getShareProcessNamespace()).isNotEqualTo(Boolean.TRUE);
        assertThat(pod.getSpec().getAutomountServiceAccountToken()).isFalse();
    }

    /**
     * Graded code runs in the grading container: the environment's image, under another uid, with the
     * grading volume, its own /tmp, the oracle's FIFO folder and the runner script only: no workspace, no token, no run folder,
     * no pristine copy, no sidecar scratch, no rollout configuration, no variables, a read-only root.
     */
    @Test
    void theGradingContainerHasNothingOfTheSidecarOrTheAgent() {
        Pod pod = single(Fixtures.cpuEnvironment("env"), Fixtures.rollout("r1", "env"));
        Container grading = container(pod, RolloutLabels.GRADING_CONTAINER);
        assertThat(grading.getImage()).isEqualTo("example/env:1");
        assertThat(grading.getCommand()).containsExactlyElementsOf(GradingContainer.command());
        assertThat(grading.getVolumeMounts()).extracting(VolumeMount::getName, VolumeMount::getMountPath, VolumeMount::getSubPath)
                .containsExactlyInAnyOrder(tuple(PodLayout.GRADING_VOLUME, GradingContainer.MOUNT, null),
                        tuple(PodLayout.GRADING_TMP_VOLUME, "/tmp", null),
                        // the isolated oracle's FIFOs and scratch folder, shared with the oracle-worker container
                        tuple(OracleWorkerContainerBuilder.VOLUME, dev.crucible.contract.OracleContainer.IO, dev.crucible.contract.OracleContainer.IO_SUBPATH),
                        tuple(PodLayout.CONFIG_VOLUME, GradingContainer.SCRIPT_PATH, GradingContainer.CONFIG_KEY));
        assertThat(grading.getVolumeMounts()).filteredOn(m -> m.getName().equals(PodLayout.CONFIG_VOLUME))
                .allMatch(m -> Boolean.TRUE.equals(m.getReadOnly()));
        assertThat(grading.getEnv()).isNullOrEmpty();
        assertThat(grading.getEnvFrom()).isNullOrEmpty();
        assertThat(grading.getPorts()).isNullOrEmpty();
        var sc = grading.getSecurityContext();
        assertThat(sc.getReadOnlyRootFilesystem()).isTrue();
        assertThat(sc.getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(sc.getCapabilities().getAdd()).isNullOrEmpty();
        assertThat(sc.getAllowPrivilegeEscalation()).isFalse();
        assertThat(sc.getPrivileged()).isFalse();
        assertThat(sc.getRunAsNonRoot()).isTrue();
        assertThat(sc.getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
        long podUid = pod.getSpec().getSecurityContext().getRunAsUser();
        assertThat(sc.getRunAsUser()).isEqualTo(podUid + PodLayout.GRADER_UID_OFFSET).isNotEqualTo(podUid);
        assertThat(grading.getResources().getLimits()).containsKeys("cpu", "memory");
        // up to the environment's resources, but it requests only the sidecar's share: the agent's are not reserved twice
        Container agent = container(pod, "agent");
        assertThat(grading.getResources().getLimits()).isEqualTo(agent.getResources().getLimits());
        assertThat(grading.getResources().getRequests()).isEqualTo(container(pod, "verifier").getResources().getRequests())
                .isNotEqualTo(agent.getResources().getRequests());
        assertThat(pod.getSpec().getAutomountServiceAccountToken()).isFalse();
        assertThat(pod.getSpec().getShareProcessNamespace()).isFalse();
    }

    /** The grading volume (hidden tests at grading time) is the sidecar's and the grading container's only. */
    @Test
    void theAgentNeverMountsTheGradingVolume() {
        for (Pod pod : List.of(single(Fixtures.cpuEnvironment("env"), Fixtures.rollout("r1", "env")),
                single(Fixtures.gpuEnvironment("env", 1), Fixtures.rollout("r2", "env")))) {
            List<Container> all = new java.util.ArrayList<>(pod.getSpec().getContainers());
            all.addAll(pod.getSpec().getInitContainers());
            assertThat(all).filteredOn(c -> c.getVolumeMounts().stream().anyMatch(m -> m.getName().equals(PodLayout.GRADING_VOLUME)))
                    .extracting(Container::getName).containsExactlyInAnyOrder(RolloutLabels.VERIFIER_CONTAINER, RolloutLabels.GRADING_CONTAINER,
                            RolloutLabels.INIT_CONTAINER, RolloutLabels.ORACLE_WORKER_CONTAINER);
            // the init container (before any agent code) makes the tree copies' folder; the oracle worker sees only that folder
            assertThat(all).filteredOn(c -> c.getName().equals(RolloutLabels.ORACLE_WORKER_CONTAINER)).flatExtracting(Container::getVolumeMounts)
                    .filteredOn(m -> m.getName().equals(PodLayout.GRADING_VOLUME)).extracting(VolumeMount::getSubPath)
                    .containsExactly(dev.crucible.contract.OracleContainer.TREES_SUBPATH);
            assertThat(all).filteredOn(c -> c.getName().equals(RolloutLabels.AGENT_CONTAINER)).flatExtracting(Container::getVolumeMounts)
                    .noneMatch(m -> m.getName().equals(PodLayout.GRADING_VOLUME));
            assertThat(all).filteredOn(c -> c.getVolumeMounts().stream().anyMatch(m -> m.getName().equals(PodLayout.GRADING_TMP_VOLUME)))
                    .extracting(Container::getName).containsExactly(RolloutLabels.GRADING_CONTAINER);
            Container verifier = container(pod, RolloutLabels.VERIFIER_CONTAINER);
            assertThat(verifier.getVolumeMounts()).anySatisfy(m -> {
                assertThat(m.getName()).isEqualTo(PodLayout.GRADING_VOLUME);
                assertThat(m.getMountPath()).isEqualTo(GradingContainer.MOUNT);
            });
            assertThat(verifier.getEnv()).extracting(e -> e.getName() + "=" + e.getValue())
                    .contains("CRUCIBLE_GRADING_SOCKET=" + GradingContainer.SOCKET, "CRUCIBLE_GRADING_DIR=" + GradingContainer.TREES);
            Container grading = container(pod, RolloutLabels.GRADING_CONTAINER);
            assertThat(grading.getResources().getLimits()).doesNotContainKey(PodLayout.GPU_RESOURCE);
        }
        var cm = EnvironmentConfigMapBuilder.build(Fixtures.cpuEnvironment("env"));
        assertThat(cm.getData()).containsEntry(GradingContainer.CONFIG_KEY, GradingContainer.script());
    }

    @Test
    void protectedDirectoriesAreReadOnlyPristineMountsInTheAgent() {
        Pod pod = single(Fixtures.cpuEnvironment("env"), Fixtures.rollout("r1", "env"));
        Container agent = container(pod, RolloutLabels.AGENT_CONTAINER);
        List<VolumeMount> pristine = agent.getVolumeMounts().stream()
                .filter(m -> m.getName().equals(PodLayout.PRISTINE_VOLUME)).toList();
        assertThat(pristine).extracting(VolumeMount::getMountPath)
                .containsExactly("/workspace/tests"); // conftest.py is the verifier's: see ProtectedPathMounts
        assertThat(pristine).allSatisfy(m -> assertThat(m.getReadOnly()).isTrue());
        assertThat(pristine).extracting(VolumeMount::getSubPath).containsExactly("tests");
    }

    @Test
    void cpuRolloutKeepsOffGpuNodes() {
        Pod pod = single(Fixtures.cpuEnvironment("env"), Fixtures.rollout("r1", "env"));
        var terms = pod.getSpec().getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution()
                .getNodeSelectorTerms();
        assertThat(terms).singleElement().satisfies(t -> assertThat(t.getMatchExpressions()).singleElement().satisfies(e -> {
            assertThat(e.getKey()).isEqualTo("nvidia.com/gpu.present");
            assertThat(e.getOperator()).isEqualTo("DoesNotExist");
        }));
        assertThat(container(pod, "agent").getResources().getLimits()).doesNotContainKey("nvidia.com/gpu");
    }

    @Test
    void gpuRolloutRequestsGpusAndGoesToGpuNodes() {
        RLEnvironment env = Fixtures.gpuEnvironment("env", 4);
        Rollout rollout = Fixtures.rollout("r1", "env");
        rollout.getSpec().placement = new dev.crucible.api.v1alpha1.rollout.PlacementSpec();
        rollout.getSpec().placement.nodeSelector = java.util.Map.of("pool", "h100-spot");
        Pod pod = single(env, rollout);
        Container agent = container(pod, "agent");
        assertThat(agent.getResources().getLimits().get("nvidia.com/gpu").getAmount()).isEqualTo("4");
        assertThat(agent.getResources().getRequests().get("nvidia.com/gpu").getAmount()).isEqualTo("4");
        assertThat(container(pod, "verifier").getResources().getLimits()).doesNotContainKey("nvidia.com/gpu");
        assertThat(pod.getSpec().getNodeSelector()).containsEntry("nvidia.com/gpu.present", "true")
                .containsEntry("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3").containsEntry("pool", "h100-spot");
        assertThat(pod.getSpec().getTolerations()).anySatisfy(t -> assertThat(t.getKey()).isEqualTo("nvidia.com/gpu"));
        assertThat(pod.getSpec().getAffinity()).isNull();
    }

    @Test
    void gangMembersAreGatedAndResolvableThroughTheHeadlessService() {
        RLEnvironment env = Fixtures.twoNodeEnvironment("env", 8);
        Rollout rollout = Fixtures.rollout("r1", "env");
        List<MemberPlan> plan = TopologyPlanner.plan(env.getSpec());
        assertThat(plan).extracting(m -> m.podName("r1")).containsExactly("r1-trainer-0", "r1-trainer-1");
        Pod second = builder.build(rollout, env, plan.get(1), plan, true, null);
        assertThat(second.getSpec().getSchedulingGates()).singleElement()
                .satisfies(g -> assertThat(g.getName()).isEqualTo(RolloutLabels.GANG_GATE));
        assertThat(second.getSpec().getHostname()).isEqualTo("r1-trainer-1");
        assertThat(second.getSpec().getSubdomain()).isEqualTo("r1");
        assertThat(container(second, "agent").getEnv()).anySatisfy(e -> {
            assertThat(e.getName()).isEqualTo("CRUCIBLE_RENDEZVOUS");
            assertThat(e.getValue()).isEqualTo("r1-trainer-0.r1:29500");
        });
    }

    @Test
    void coschedulingPodGroupLabelsAndScheduler() {
        RLEnvironment env = Fixtures.twoNodeEnvironment("env", 8);
        List<MemberPlan> plan = TopologyPlanner.plan(env.getSpec());
        Pod pod = builder.build(Fixtures.rollout("r1", "env"), env, plan.get(0), plan, true,
                GangSchedulerSupport.Kind.COSCHEDULING);
        assertThat(pod.getMetadata().getLabels()).containsEntry("scheduling.x-k8s.io/pod-group", "r1");
        assertThat(pod.getSpec().getSchedulerName()).isEqualTo(settings.gangSchedulerName());
        var group = GangSchedulerSupport.podGroup(GangSchedulerSupport.Kind.COSCHEDULING, Fixtures.rollout("r1", "env"), 2, 60);
        assertThat(group.getApiVersion()).isEqualTo("scheduling.x-k8s.io/v1alpha1");
        assertThat(group.getAdditionalProperties().get("spec").toString()).contains("minMember=2");
    }

    @Test
    void deadlineBacksUpTheOperatorWithActiveDeadlineSeconds() {
        Pod pod = single(Fixtures.cpuEnvironment("env"), Fixtures.rollout("r1", "env"));
        assertThat(pod.getSpec().getActiveDeadlineSeconds()).isEqualTo(600 + RolloutPodBuilder.DEADLINE_GRACE_SECONDS);
    }

    @Test
    void aBranchWaitsForItsRestoredWorkspaceInsteadOfCopyingTheImages() throws Exception {
        RLEnvironment env = Fixtures.cpuEnvironment("env");
        String fresh = String.join(" ", single(env, Fixtures.rollout("r1", "env")).getSpec().getInitContainers().get(0).getCommand());
        assertThat(fresh).contains("/mnt/workspace/").doesNotContain(PodLayout.RESTORED_MARKER);

        Rollout branch = Fixtures.rollout("r2", "env");
        branch.getSpec().restoreFrom = new dev.crucible.api.v1alpha1.rollout.RestoreFromSpec();
        branch.getSpec().restoreFrom.snapshotName = "snap";
        List<String> cmd = single(env, branch).getSpec().getInitContainers().get(0).getCommand();
        // The pristine copy grading trusts still comes from the image; the workspace from the snapshot.
        assertThat(cmd.get(2)).contains("cp -a \"$f\" /mnt/pristine/;")
                .doesNotContain("/mnt/workspace/;")
                .contains("until [ -f /mnt/workspace/" + PodLayout.RESTORED_MARKER + " ]")
                .contains("exit 1");
        // And the script really waits: run it with a marker that appears after a moment.
        java.nio.file.Path root = java.nio.file.Files.createTempDirectory("branch-init");
        String script = cmd.get(2).replace("/mnt/", root + "/").replace("sleep 1", "sleep 0.1");
        java.nio.file.Files.createDirectories(root.resolve("workspace/.crucible"));
        java.nio.file.Files.createDirectories(root.resolve("pristine"));
        Process p = new ProcessBuilder("sh", "-c", script).redirectErrorStream(true).start();
        Thread.sleep(300);
        assertThat(p.isAlive()).as("still waiting for the marker").isTrue();
        java.nio.file.Files.writeString(root.resolve("workspace/" + PodLayout.RESTORED_MARKER), "snap");
        assertThat(p.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isZero();
    }
}
