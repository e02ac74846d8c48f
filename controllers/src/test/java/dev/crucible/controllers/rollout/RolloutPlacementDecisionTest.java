package dev.crucible.controllers.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.contract.PhaseName;
import dev.crucible.controllers.Fixtures;
import dev.crucible.controllers.capacity.GangFit;
import dev.crucible.controllers.config.OperatorSettings;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The state machine's placement decisions: gangs created gated and released together, and what never fits fails at once. */
class RolloutPlacementDecisionTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private final RolloutPodBuilder builder = new RolloutPodBuilder(OperatorSettings.defaults());

    private Map<String, Pod> pods(Rollout r, RLEnvironment env, boolean gated) {
        List<MemberPlan> plan = TopologyPlanner.plan(env.getSpec());
        Map<String, Pod> pods = new HashMap<>();
        for (MemberPlan m : plan) {
            Pod p = builder.build(r, env, m, plan, gated, null);
            pods.put(p.getMetadata().getName(), p);
        }
        return pods;
    }

    @Test
    void gangIsCreatedGatedThenReleasedTogether() {
        RLEnvironment env = Fixtures.twoNodeEnvironment("env", 8);
        Rollout r = Fixtures.rollout("r1", "env");
        RolloutDecision create = RolloutStateMachine.decide(r, env, true, Map.of(), T0);
        assertThat(create.create()).hasSize(2);
        assertThat(create.gateNew()).isTrue();

        Map<String, Pod> pods = pods(r, env, true);
        Pod first = pods.remove("r1-trainer-1");
        RolloutDecision partial = RolloutStateMachine.decide(r, env, true, pods, T0);
        assertThat(partial.create()).extracting(MemberPlan::index).containsExactly(1);
        assertThat(partial.ungate()).isEmpty();

        pods.put("r1-trainer-1", first);
        RolloutDecision release = RolloutStateMachine.decide(r, env, true, pods, T0.plusSeconds(1));
        assertThat(release.reason()).isEqualTo(Reasons.GANG_RELEASED);
        assertThat(release.ungate()).containsExactlyInAnyOrder("r1-trainer-0", "r1-trainer-1");
    }

    /** A GPU node as the NVIDIA GPU operator labels and taints it, and a CPU node. */
    private static io.fabric8.kubernetes.api.model.Node node(String name, int gpus) {
        OperatorSettings s = OperatorSettings.defaults();
        var b = new io.fabric8.kubernetes.api.model.NodeBuilder().withNewMetadata().withName(name)
                .addToLabels("kubernetes.io/hostname", name).endMetadata();
        Map<String, io.fabric8.kubernetes.api.model.Quantity> alloc = new HashMap<>(Map.of(
                "cpu", new io.fabric8.kubernetes.api.model.Quantity("64"), "memory", new io.fabric8.kubernetes.api.model.Quantity("256Gi"),
                "pods", new io.fabric8.kubernetes.api.model.Quantity("110")));
        if (gpus > 0) {
            alloc.put("nvidia.com/gpu", new io.fabric8.kubernetes.api.model.Quantity(Integer.toString(gpus)));
            b.editMetadata().addToLabels(s.gpuNodeSelector()).endMetadata().withNewSpec().withTaints(s.gpuTolerations().stream()
                    .map(t -> new io.fabric8.kubernetes.api.model.TaintBuilder().withKey(t.getKey()).withValue(t.getValue() == null ? "present" : t.getValue())
                            .withEffect(t.getEffect() == null ? "NoSchedule" : t.getEffect()).build()).toList()).endSpec();
        }
        return b.withNewStatus().withAllocatable(alloc).endStatus().build();
    }

    /** The fit check on the pods the operator builds: a gang that fits is released, one that never can fails, none binds early. */
    @Test
    void aGatedGangIsReleasedOnlyWhenItFitsAndFailsAtOnceWhenItNeverCan() {
        RLEnvironment env = Fixtures.twoNodeEnvironment("env", 8);
        Rollout r = Fixtures.rollout("r1", "env");
        Map<String, Pod> pods = pods(r, env, true);
        List<Pod> members = List.copyOf(pods.values());
        var gpuNodes = List.of(node("cpu-0", 0), node("gpu-0", 8), node("gpu-1", 8));

        GangFit.Result fits = GangFit.check(members, gpuNodes, List.of());
        assertThat(fits.verdict()).as(fits.message()).isEqualTo(GangFit.Verdict.FITS);
        RolloutDecision release = RolloutStateMachine.decide(r, env, true, pods, T0.plusSeconds(1), fits);
        assertThat(release.reason()).isEqualTo(Reasons.GANG_RELEASED);
        assertThat(release.ungate()).hasSize(2);

        Pod busy = new io.fabric8.kubernetes.api.model.PodBuilder(members.get(0)).editMetadata().withName("other").endMetadata()
                .editSpec().withSchedulingGates().withNodeName("gpu-1").endSpec().build();
        GangFit.Result wait = GangFit.check(members, gpuNodes, List.of(busy));
        assertThat(wait.verdict()).isEqualTo(GangFit.Verdict.WAIT);
        RolloutDecision held = RolloutStateMachine.decide(r, env, true, pods, T0.plusSeconds(10), wait);
        assertThat(held.phase()).isEqualTo(PhaseName.Pending);
        assertThat(held.reason()).isEqualTo(Reasons.GANG_WAITING);
        assertThat(held.ungate()).as("nothing is released while the gang does not fit").isEmpty();
        assertThat(held.stopPods()).isFalse();
        assertThat(held.requeueAfter()).isPositive().isLessThanOrEqualTo(java.time.Duration.ofSeconds(5));
        RolloutDecision timedOut = RolloutStateMachine.decide(r, env, true, pods, T0.plusSeconds(61), wait);
        assertThat(timedOut.phase()).isEqualTo(PhaseName.Failed);
        assertThat(timedOut.reason()).isEqualTo(Reasons.GANG_TIMEOUT);
        assertThat(timedOut.message()).contains("no member was bound");
        assertThat(timedOut.stopPods()).isTrue();

        GangFit.Result never = GangFit.check(members, List.of(node("cpu-0", 0), node("gpu-0", 8)), List.of());
        RolloutDecision failed = RolloutStateMachine.decide(r, env, true, pods, T0.plusSeconds(1), never);
        assertThat(failed.phase()).isEqualTo(PhaseName.Failed);
        assertThat(failed.reason()).isEqualTo(Reasons.GANG_CANNOT_FIT);
        assertThat(failed.message()).contains("nvidia.com/gpu=16 in all", "nvidia.com/gpu=8 together");
        assertThat(failed.stopPods()).isTrue();
    }

    @Test
    void aSinglePodNoNodeCouldEverHoldFailsInsteadOfWaitingForItsDeadline() {
        RLEnvironment env = Fixtures.cpuEnvironment("env");
        env.getSpec().resources.gpus = 16;
        Rollout r = Fixtures.rollout("r1", "env");
        Map<String, Pod> pods = pods(r, env, false);
        GangFit.Result never = GangFit.check(List.copyOf(pods.values()), List.of(node("gpu-0", 8), node("cpu-0", 0)), List.of());
        assertThat(never.verdict()).isEqualTo(GangFit.Verdict.NEVER);
        RolloutDecision d = RolloutStateMachine.decide(r, env, true, pods, T0.plusSeconds(5), never);
        assertThat(d.phase()).isEqualTo(PhaseName.Failed);
        assertThat(d.reason()).isEqualTo(Reasons.CANNOT_FIT);
        assertThat(d.message()).startsWith("pod r1-").contains("nvidia.com/gpu=16", "largest: nvidia.com/gpu=8");
        assertThat(RolloutStateMachine.decide(r, env, true, pods, T0.plusSeconds(5), null).phase()).isEqualTo(PhaseName.Pending);
    }

    @Test
    void gangThatCannotBePlacedTimesOutAndIsRemoved() {
        RLEnvironment env = Fixtures.twoNodeEnvironment("env", 8);
        Rollout r = Fixtures.rollout("r1", "env");
        Map<String, Pod> pods = pods(r, env, false);
        Pod p = pods.get("r1-trainer-0");
        p.getSpec().setNodeName("gpu-1");
        p.setStatus(new io.fabric8.kubernetes.api.model.PodStatusBuilder().withPhase("Pending").build());
        pods.get("r1-trainer-1").setStatus(new io.fabric8.kubernetes.api.model.PodStatusBuilder().withPhase("Pending")
                .withConditions(new PodConditionBuilder().withType("PodScheduled").withStatus("False")
                        .withReason("Unschedulable").withMessage("0/3 nodes are available: 3 Insufficient nvidia.com/gpu.").build())
                .build());
        RolloutDecision waiting = RolloutStateMachine.decide(r, env, true, pods, T0.plusSeconds(30));
        assertThat(waiting.reason()).isEqualTo(Reasons.UNSCHEDULABLE);
        assertThat(waiting.message()).contains("Insufficient nvidia.com/gpu");
        assertThat(waiting.requeueAfter().getSeconds()).isEqualTo(30);

        RolloutDecision timeout = RolloutStateMachine.decide(r, env, true, pods, T0.plusSeconds(60));
        assertThat(timeout.phase()).isEqualTo(PhaseName.Failed);
        assertThat(timeout.reason()).isEqualTo(Reasons.GANG_TIMEOUT);
        assertThat(timeout.stopPods()).isTrue();
    }
}
