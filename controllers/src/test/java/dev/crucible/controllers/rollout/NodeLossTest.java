package dev.crucible.controllers.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.rollout.RolloutStatus;
import dev.crucible.contract.PhaseName;
import dev.crucible.controllers.Fixtures;
import dev.crucible.controllers.config.OperatorSettings;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Issue 41, point 2: a gang member lost with its node ends the Rollout Failed/NodeLost and stops the other members. */
class NodeLossTest {

    private static final Instant NOW = Instant.parse("2026-01-01T00:01:00Z");
    private final RLEnvironment env = Fixtures.twoNodeEnvironment("env", 1);
    private final Rollout rollout = Fixtures.rollout("r1", "env");

    /** Both members Running, on gpu-0 and gpu-1, as the status of the last reconcile recorded them. */
    private Map<String, Pod> running() {
        List<MemberPlan> plan = TopologyPlanner.plan(env.getSpec());
        RolloutPodBuilder builder = new RolloutPodBuilder(OperatorSettings.defaults());
        Map<String, Pod> pods = new HashMap<>();
        int i = 0;
        for (MemberPlan m : plan) {
            Pod p = builder.build(rollout, env, m, plan, false, null);
            p.getSpec().setNodeName("gpu-" + i++);
            p.setStatus(new PodStatusBuilder().withPhase("Running").build());
            pods.put(p.getMetadata().getName(), p);
        }
        RolloutStatus s = new RolloutStatus();
        s.phase = PhaseName.Running;
        s.members = RolloutStateMachine.members("r1", plan, pods);
        rollout.setStatus(s);
        return pods;
    }

    @Test
    void aMemberThePodGarbageCollectorMarkedForItsLostNodeEndsTheRolloutNodeLost() {
        Map<String, Pod> pods = running();
        // what PodGC writes before its force delete: phase Failed and the DisruptionTarget condition
        Pod lost = pods.get("r1-trainer-1");
        lost.getStatus().setPhase("Failed");
        lost.getStatus().setConditions(List.of(new PodConditionBuilder().withType("DisruptionTarget").withStatus("True")
                .withReason("DeletionByPodGC").withMessage("PodGC: node no longer exists").build()));
        RolloutDecision d = RolloutStateMachine.decide(rollout, env, true, pods, NOW);
        assertThat(d.phase()).isEqualTo(PhaseName.Failed);
        assertThat(d.reason()).isEqualTo("NodeLost");
        assertThat(d.message()).contains("node gpu-1", "r1-trainer-1", "node no longer exists");
        assertThat(d.stopPods()).as("the other member is stopped, its GPU released").isTrue();
    }

    @Test
    void aMemberGoneWithANodeThatNoLongerExistsEndsTheRolloutNodeLost() {
        Map<String, Pod> pods = running();
        pods.remove("r1-trainer-0");
        Observed seen = new Observed(rollout, env, true, pods, null, null, false, NOW, Set.of("gpu-0"));
        RolloutDecision d = RolloutStateMachine.decide(seen);
        assertThat(d.phase()).isEqualTo(PhaseName.Failed);
        assertThat(d.reason()).isEqualTo("NodeLost");
        assertThat(d.message()).contains("node gpu-0", "r1-trainer-0");
        assertThat(d.stopPods()).isTrue();
        assertThat(d.create()).isEmpty();
        // its node still there: deleted or evicted, not lost with a node
        RolloutDecision deleted = RolloutStateMachine.decide(new Observed(rollout, env, true, pods, null, null, false, NOW, Set.of()));
        assertThat(deleted.reason()).isEqualTo(Reasons.MEMBER_LOST);
    }

    @Test
    void onlyTheNodesOfMissingMembersOfARunningRolloutAreLookedUp() {
        Map<String, Pod> pods = running();
        assertThat(NodeLoss.nodesOfMissing(rollout, pods)).isEmpty();
        pods.remove("r1-trainer-1");
        assertThat(NodeLoss.nodesOfMissing(rollout, pods)).containsExactly("gpu-1");
        rollout.getStatus().phase = PhaseName.Initializing; // not started: a missing pod is created again, nothing to look up
        assertThat(NodeLoss.nodesOfMissing(rollout, pods)).isEmpty();
    }
}
