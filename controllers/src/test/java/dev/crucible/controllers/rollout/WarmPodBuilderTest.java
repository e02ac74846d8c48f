package dev.crucible.controllers.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.environment.WarmPoolSpec;
import dev.crucible.api.v1alpha1.rollout.PlacementSpec;
import dev.crucible.api.v1alpha1.rollout.RolloutMode;
import dev.crucible.api.v1alpha1.rollout.WarmPoolUse;
import dev.crucible.controllers.Fixtures;
import dev.crucible.controllers.common.PodLayout;
import dev.crucible.controllers.common.RolloutLabels;
import dev.crucible.controllers.common.WarmPoolLabels;
import dev.crucible.controllers.config.OperatorSettings;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Volume;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A warm-pool pod against the cold pod of the same interactive Rollout, field by field (issue 39: same security). */
class WarmPodBuilderTest {

    private static final Set<String> ATTEMPT = Set.of("CRUCIBLE_ROLLOUT", "CRUCIBLE_DEADLINE_AT", "CRUCIBLE_MAX_DURATION_SECONDS",
            "CRUCIBLE_MAX_TURNS", "CRUCIBLE_TASK_FILE", WarmPoolLabels.WARM_POOL_ENV);

    private static RLEnvironment pooled() {
        RLEnvironment env = Fixtures.cpuEnvironment("env");
        env.getSpec().warmPool = new WarmPoolSpec();
        env.getSpec().warmPool.max = 4;
        return env;
    }

    private static Rollout interactive(String name) {
        Rollout r = Fixtures.rollout(name, "env");
        r.getSpec().mode = RolloutMode.INTERACTIVE;
        r.getSpec().agent = null;
        return r;
    }

    private static Container container(Pod pod, String name) {
        return pod.getSpec().getContainers().stream().filter(c -> c.getName().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void aPoolPodHasTheColdPodsSecurityAndLacksOnlyTheAttempt() {
        for (OperatorSettings settings : List.of(OperatorSettings.defaults().withVerifierImage("verifier:test"),
                OperatorSettings.defaults().withVerifierImage("verifier:test").withUserNamespaces(true))) {
            RLEnvironment env = pooled();
            List<MemberPlan> plan = TopologyPlanner.plan(env.getSpec());
            Pod cold = new RolloutPodBuilder(settings).build(interactive("r1"), env, plan.get(0), plan, false, null);
            Pod warm = new WarmPodBuilder(settings).build(env);

            assertThat(warm.getSpec().getSecurityContext()).isEqualTo(cold.getSpec().getSecurityContext());
            assertThat(warm.getSpec().getHostUsers()).isEqualTo(cold.getSpec().getHostUsers());
            assertThat(warm.getSpec().getRuntimeClassName()).isEqualTo(cold.getSpec().getRuntimeClassName()).isEqualTo("gvisor");
            assertThat(warm.getSpec().getAutomountServiceAccountToken()).isEqualTo(cold.getSpec().getAutomountServiceAccountToken()).isFalse();
            assertThat(warm.getSpec().getShareProcessNamespace()).isEqualTo(cold.getSpec().getShareProcessNamespace());
            assertThat(warm.getSpec().getEnableServiceLinks()).isEqualTo(cold.getSpec().getEnableServiceLinks());
            assertThat(warm.getSpec().getNodeSelector()).isEqualTo(cold.getSpec().getNodeSelector());
            assertThat(warm.getSpec().getTolerations()).isEqualTo(cold.getSpec().getTolerations());
            assertThat(warm.getSpec().getInitContainers()).as("workspace set-up, read-only pristine copy").isEqualTo(cold.getSpec().getInitContainers());
            // the same egress policy selects both
            assertThat(warm.getMetadata().getLabels().get(RolloutLabels.EGRESS)).isEqualTo(cold.getMetadata().getLabels().get(RolloutLabels.EGRESS)).isNotNull();
            assertThat(warm.getSpec().getContainers()).extracting(Container::getName)
                    .containsExactlyElementsOf(cold.getSpec().getContainers().stream().map(Container::getName).toList());
            for (Container c : cold.getSpec().getContainers()) {
                Container w = container(warm, c.getName());
                assertThat(w.getSecurityContext()).as(c.getName() + " securityContext").isEqualTo(c.getSecurityContext());
                assertThat(w.getImage()).as(c.getName() + " image").isEqualTo(c.getImage());
                assertThat(w.getCommand()).as(c.getName() + " command").isEqualTo(c.getCommand());
                assertThat(w.getResources()).as(c.getName() + " resources").isEqualTo(c.getResources());
                assertThat(w.getVolumeMounts()).as(c.getName() + " mounts, less the task file")
                        .isEqualTo(c.getVolumeMounts().stream().filter(m -> RolloutLabels.VERIFIER_CONTAINER.equals(c.getName())
                                || !PodLayout.TASK_FILE.equals(m.getMountPath())).toList());
                assertThat(w.getEnv().stream().filter(v -> !ATTEMPT.contains(v.getName())).toList()).as(c.getName() + " env")
                        .isEqualTo(c.getEnv().stream().filter(v -> !ATTEMPT.contains(v.getName())).toList());
                assertThat(w.getEnv()).extracting(EnvVar::getName).doesNotContain("CRUCIBLE_ROLLOUT", "CRUCIBLE_DEADLINE_AT");
            }
            // the volumes, but for the claim's file beside rollout.yaml
            assertThat(warm.getSpec().getVolumes().stream().map(Volume::getName).toList())
                    .isEqualTo(cold.getSpec().getVolumes().stream().map(Volume::getName).toList());
            Volume config = warm.getSpec().getVolumes().stream().filter(v -> v.getName().equals(PodLayout.CONFIG_VOLUME)).findFirst().orElseThrow();
            assertThat(config.getProjected().getSources()).hasSize(3);
            assertThat(config.getProjected().getSources().get(2).getDownwardAPI().getItems().get(0).getPath()).isEqualTo(WarmPoolLabels.CLAIM_FILE);
            assertThat(warm.getMetadata().getAnnotations()).containsEntry(EnvironmentConfigMapBuilder.ROLLOUT_ANNOTATION, "")
                    .containsEntry(WarmPoolLabels.CLAIM_ANNOTATION, "");
            assertThat(warm.getMetadata().getLabels()).doesNotContainKey(RolloutLabels.ROLLOUT)
                    .containsEntry(WarmPoolLabels.STATE, WarmPoolLabels.FREE);
        }
    }

    /**
     * The whole pod spec, not a list of fields: the cold pod's spec with the attempt taken out must equal the warm
     * pod's with its pool-only parts taken out, so any field added to one builder and not the other (a capability,
     * a host namespace, a mount made writable, a service account) fails here.
     */
    @Test
    void theWholeSpecDiffersOnlyByTheAttempt() {
        for (OperatorSettings settings : List.of(OperatorSettings.defaults().withVerifierImage("verifier:test"),
                OperatorSettings.defaults().withVerifierImage("verifier:test").withUserNamespaces(true))) {
            RLEnvironment env = pooled();
            List<MemberPlan> plan = TopologyPlanner.plan(env.getSpec());
            var json = io.fabric8.kubernetes.client.utils.Serialization.jsonMapper();
            var cold = (com.fasterxml.jackson.databind.node.ObjectNode) json.valueToTree(
                    new RolloutPodBuilder(settings).build(interactive("r1"), env, plan.get(0), plan, false, null).getSpec());
            var warm = (com.fasterxml.jackson.databind.node.ObjectNode) json.valueToTree(new WarmPodBuilder(settings).build(env).getSpec());
            assertThat(warm.path("activeDeadlineSeconds").asLong()).as("room for a TTL's wait plus any attempt, lowered at claim")
                    .isGreaterThan(cold.path("activeDeadlineSeconds").asLong());
            cold.remove("activeDeadlineSeconds");
            warm.remove("activeDeadlineSeconds");
            for (var c : cold.withArray("containers")) {
                ((com.fasterxml.jackson.databind.node.ArrayNode) c.withArray("env")).removeIf(v -> ATTEMPT.contains(v.path("name").asText()));
                if (!RolloutLabels.VERIFIER_CONTAINER.equals(c.path("name").asText())) {
                    ((com.fasterxml.jackson.databind.node.ArrayNode) c.withArray("volumeMounts"))
                            .removeIf(m -> PodLayout.TASK_FILE.equals(m.path("mountPath").asText()));
                }
            }
            for (var c : warm.withArray("containers")) {
                ((com.fasterxml.jackson.databind.node.ArrayNode) c.withArray("env")).removeIf(v -> ATTEMPT.contains(v.path("name").asText()));
                if (RolloutLabels.VERIFIER_CONTAINER.equals(c.path("name").asText())) {
                    assertThat(c.path("readinessProbe").path("httpGet").path("path").asText()).as("ready once the claim is taken")
                            .isEqualTo("/healthz");
                    ((com.fasterxml.jackson.databind.node.ObjectNode) c).remove("readinessProbe");
                    assertThat(c.path("startupProbe").path("exec").path("command").toString()).as("started once setup ran ahead")
                            .isEqualTo("[\"test\",\"-e\",\"/crucible/run/setup.done\"]");
                    ((com.fasterxml.jackson.databind.node.ObjectNode) c).remove("startupProbe");
                }
            }
            for (var v : warm.withArray("volumes")) {
                if (PodLayout.CONFIG_VOLUME.equals(v.path("name").asText())) {
                    ((com.fasterxml.jackson.databind.node.ArrayNode) v.path("projected").withArray("sources")).remove(2);
                }
            }
            assertThat(warm).as("the warm pod's spec less the pool's parts").isEqualTo(cold);
        }
    }

    @Test
    void theTemplateFollowsTheEnvironmentsSpecAndTwoPodsGetTwoNames() {
        WarmPodBuilder builder = new WarmPodBuilder(OperatorSettings.defaults());
        RLEnvironment env = pooled();
        String before = builder.templateHash(env);
        assertThat(builder.templateHash(pooled())).isEqualTo(before);
        assertThat(builder.build(env).getMetadata().getLabels()).containsEntry(WarmPoolLabels.TEMPLATE, before);
        assertThat(builder.build(env).getMetadata().getName()).isNotEqualTo(builder.build(env).getMetadata().getName());
        env.getSpec().image = "example/env:2";
        assertThat(builder.templateHash(env)).isNotEqualTo(before);
    }

    @Test
    void onlyARolloutThatFitsThePoolPodMayClaimOne() {
        RLEnvironment env = pooled();
        assertThat(WarmPodBuilder.coldBecause(interactive("r"), env)).isNull();
        assertThat(WarmPodBuilder.coldBecause(Fixtures.rollout("r", "env"), env)).contains("embedded");
        Rollout never = interactive("r");
        never.getSpec().warmPool = WarmPoolUse.NEVER;
        assertThat(WarmPodBuilder.coldBecause(never, env)).contains("never");
        Rollout placed = interactive("r");
        placed.getSpec().placement = new PlacementSpec();
        assertThat(WarmPodBuilder.coldBecause(placed, env)).contains("placement");
        assertThat(WarmPodBuilder.coldBecause(interactive("r"), Fixtures.cpuEnvironment("env"))).contains("no warmPool");
        RLEnvironment gpu = Fixtures.gpuEnvironment("env", 1);
        gpu.getSpec().warmPool = env.getSpec().warmPool;
        assertThat(WarmPodBuilder.coldBecause(interactive("r"), gpu)).as("a GPU pool holds its GPUs: off unless asked")
                .contains("GPU").contains("warmPool.gpu");
        gpu.getSpec().warmPool.gpu = true;
        assertThat(WarmPodBuilder.coldBecause(interactive("r"), gpu)).isNull();
        assertThat(WarmPodBuilder.unsupported(gpu)).isNull();
        RLEnvironment gang = Fixtures.twoNodeEnvironment("env", 8);
        gang.getSpec().warmPool = gpu.getSpec().warmPool;
        assertThat(WarmPodBuilder.unsupported(gang)).as("gang pools are not built: none of its members is kept").contains("multi-pod");
    }

    /** A GPU pool pod is placed as a cold GPU pod is: the same GPU limits, node selector, tolerations and affinity. */
    @Test
    void aGpuPoolPodIsPlacedAsTheColdOne() {
        RLEnvironment gpu = Fixtures.gpuEnvironment("env", 1);
        gpu.getSpec().warmPool = pooled().getSpec().warmPool;
        gpu.getSpec().warmPool.gpu = true;
        OperatorSettings settings = OperatorSettings.defaults();
        List<MemberPlan> plan = TopologyPlanner.plan(gpu.getSpec());
        var cold = new RolloutPodBuilder(settings).build(interactive("r1"), gpu, plan.get(0), plan, false, null).getSpec();
        var warm = new WarmPodBuilder(settings).build(gpu).getSpec();
        assertThat(plan.get(0).gpus()).isPositive();
        assertThat(warm.getNodeSelector()).isEqualTo(cold.getNodeSelector());
        assertThat(warm.getTolerations()).isEqualTo(cold.getTolerations());
        assertThat(warm.getAffinity()).isEqualTo(cold.getAffinity());
        assertThat(warm.getSchedulingGates()).isEqualTo(cold.getSchedulingGates());
        assertThat(warm.getContainers()).extracting(c -> c.getResources().getLimits() == null ? null : c.getResources().getLimits().get("nvidia.com/gpu"))
                .isEqualTo(cold.getContainers().stream().map(c -> c.getResources().getLimits() == null ? null
                        : c.getResources().getLimits().get("nvidia.com/gpu")).toList())
                .filteredOn(java.util.Objects::nonNull).isNotEmpty();
    }
}
