package dev.crucible.controllers.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.rollout.RolloutMember;
import dev.crucible.api.v1alpha1.rollout.RolloutStatus;
import dev.crucible.contract.PhaseName;
import dev.crucible.controllers.Fixtures;
import dev.crucible.controllers.config.OperatorSettings;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 41's soak: {@code status.members[].podPhase} said Running on a Succeeded Rollout, because the
 * members were taken while the verifier had just ended and the pod (then deleted) still ran.
 */
class TerminalMemberPhaseTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final String RESULT = "{\"reward\":1.0,\"verdict\":\"pass\",\"turns\":3,\"phase\":\"Succeeded\"}";

    @Test
    void aSucceededRolloutNoLongerSaysItsPodRuns() {
        RLEnvironment env = Fixtures.cpuEnvironment("env");
        Rollout r = Fixtures.rollout("r1", "env");
        Pod pod = onlyPod(r, env, "Running");
        RolloutStatus running = RolloutStatusBuilder.build(r, RolloutStateMachine.decide(r, env, true, Map.of("r1-main-0", pod),
                T0.plusSeconds(4)), T0.plusSeconds(4));
        assertThat(running.members).singleElement().satisfies(m -> assertThat(m.podPhase).isEqualTo("Running"));
        r.setStatus(running);

        terminate(pod, "verifier", RESULT); // the pod's phase is still Running: the operator deletes it now
        RolloutDecision done = RolloutStateMachine.decide(r, env, true, Map.of("r1-main-0", pod), T0.plusSeconds(6));
        RolloutStatus s = RolloutStatusBuilder.build(r, done, T0.plusSeconds(6));
        assertThat(s.phase).isEqualTo(PhaseName.Succeeded);
        assertThat(s.members).singleElement().satisfies(m -> {
            assertThat(m.podPhase).as("podPhase of a pod stopped by the end").isNull();
            assertThat(m.pod).isEqualTo("r1-main-0");
            assertThat(m.node).isEqualTo("node-0");
        });
        assertThat(running.members.get(0).podPhase).as("the old status, compared against, is not changed").isEqualTo("Running");
    }

    @Test
    void aPodThatEndedKeepsItsFinalPhase() {
        RLEnvironment env = Fixtures.cpuEnvironment("env");
        Rollout r = Fixtures.rollout("r1", "env");
        Pod pod = onlyPod(r, env, "Succeeded");
        terminate(pod, "agent", "");
        terminate(pod, "verifier", RESULT);
        RolloutStatus s = RolloutStatusBuilder.build(r, RolloutStateMachine.decide(r, env, true, Map.of("r1-main-0", pod),
                T0.plusSeconds(6)), T0.plusSeconds(6));
        assertThat(s.phase).isEqualTo(PhaseName.Succeeded);
        assertThat(s.members).singleElement().satisfies(m -> assertThat(m.podPhase).isEqualTo("Succeeded"));
    }

    @Test
    void aStatusWrittenBeforeTheFixIsCorrectedOnTheNextReconcile() {
        RLEnvironment env = Fixtures.cpuEnvironment("env");
        Rollout r = Fixtures.rollout("r1", "env");
        RolloutStatus old = new RolloutStatus();
        old.phase = PhaseName.Succeeded;
        RolloutMember m = new RolloutMember();
        m.pod = "r1-main-0";
        m.podPhase = "Running";
        old.members = List.of(m);
        r.setStatus(old);
        RolloutStatus s = RolloutStatusBuilder.build(r, RolloutStateMachine.decide(r, env, true, Map.of(), T0.plusSeconds(60)),
                T0.plusSeconds(60));
        assertThat(s.phase).isEqualTo(PhaseName.Succeeded);
        assertThat(s.members).singleElement().satisfies(x -> assertThat(x.podPhase).isNull());
    }

    private static Pod onlyPod(Rollout r, RLEnvironment env, String phase) {
        List<MemberPlan> plan = TopologyPlanner.plan(env.getSpec());
        Pod p = new RolloutPodBuilder(OperatorSettings.defaults()).build(r, env, plan.get(0), plan, false, null);
        p.getSpec().setNodeName("node-0");
        p.setStatus(new PodStatusBuilder().withPhase(phase).withPodIP("10.0.0.1").build());
        return p;
    }

    private static void terminate(Pod p, String container, String message) {
        var statuses = new ArrayList<>(p.getStatus().getContainerStatuses() == null ? List.of() : p.getStatus().getContainerStatuses());
        statuses.add(new ContainerStatusBuilder().withName(container).withNewState().withNewTerminated()
                .withExitCode(0).withMessage(message).endTerminated().endState().build());
        p.getStatus().setContainerStatuses(statuses);
    }
}
