package dev.crucible.controllers.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.environment.WarmPoolSpec;
import dev.crucible.api.v1alpha1.rollout.RolloutMode;
import dev.crucible.api.v1alpha1.rollout.RolloutStatus;
import dev.crucible.contract.PhaseName;
import dev.crucible.controllers.Fixtures;
import dev.crucible.controllers.common.RolloutLabels;
import dev.crucible.controllers.common.WarmPoolLabels;
import dev.crucible.controllers.config.OperatorSettings;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The start of a warm Rollout (issue 39): a pool pod is claimable once its containers run (it is never Ready
 * unclaimed: its sidecar listens only after a claim); the Rollout claiming it stays Initializing until that
 * sidecar is ready, so a pod lost in between is recreated, cold, and a pod lost after it fails the Rollout.
 */
class WarmClaimStartTest {
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private static RLEnvironment pooled() {
        RLEnvironment env = Fixtures.cpuEnvironment("env");
        env.getSpec().warmPool = new WarmPoolSpec();
        env.getSpec().warmPool.max = 2;
        return env;
    }

    private static Rollout interactive(String name) {
        Rollout r = Fixtures.rollout(name, "env");
        r.getSpec().mode = RolloutMode.INTERACTIVE;
        r.getSpec().agent = null;
        return r;
    }

    /** A pool pod as the kubelet reports it: every container running, the verifier ready or not. */
    private static Pod running(Pod p, boolean verifierReady) {
        p.getSpec().setNodeName("node-0");
        List<ContainerStatus> statuses = p.getSpec().getContainers().stream().map(c -> new ContainerStatusBuilder().withName(c.getName())
                .withReady(!RolloutLabels.VERIFIER_CONTAINER.equals(c.getName()) || verifierReady)
                .withNewState().withNewRunning().endRunning().endState().build()).toList();
        p.setStatus(new PodStatusBuilder().withPhase("Running").withPodIP("10.0.0.9").withContainerStatuses(statuses).build());
        return p;
    }

    private static Pod claimed(Pod pool, Rollout r) {
        pool.getMetadata().getLabels().put(WarmPoolLabels.STATE, WarmPoolLabels.CLAIMED);
        pool.getMetadata().getLabels().put(RolloutLabels.ROLLOUT, r.getMetadata().getName());
        return pool;
    }

    @Test
    void aPoolPodIsClaimableUnreadyAndTheRolloutRunsOnlyOnceItsSidecarTookTheClaim() {
        RLEnvironment env = pooled();
        Pod pool = new WarmPodBuilder(OperatorSettings.defaults()).build(env);
        assertThat(WarmPoolClaim.ready(pool)).as("no status yet").isFalse();
        running(pool, false);
        assertThat(WarmPoolClaim.ready(pool)).as("containers running, sidecar waiting for a claim").isTrue();
        assertThat(WarmPoolClaim.claimNotTaken(pool)).as("an unclaimed pod has no claim to take").isFalse();
        // an interactive pod's agent container ends at once, exit 0 (seen on the real-node tier): still claimable
        var agent = pool.getStatus().getContainerStatuses().stream().filter(c -> c.getName().equals(RolloutLabels.AGENT_CONTAINER)).findFirst().orElseThrow();
        agent.getState().setRunning(null);
        agent.getState().setTerminated(new io.fabric8.kubernetes.api.model.ContainerStateTerminatedBuilder().withExitCode(0).build());
        assertThat(WarmPoolClaim.ready(pool)).isTrue();
        agent.getState().getTerminated().setExitCode(1);
        assertThat(WarmPoolClaim.ready(pool)).as("a container that failed").isFalse();
        agent.getState().getTerminated().setExitCode(0);
        // a real kubelet reports started: false until the sidecar's startup probe (setup run ahead) passes
        var sidecar = pool.getStatus().getContainerStatuses().stream().filter(c -> c.getName().equals(RolloutLabels.VERIFIER_CONTAINER)).findFirst().orElseThrow();
        sidecar.setStarted(false);
        assertThat(WarmPoolClaim.ready(pool)).as("setup still running in the pool pod").isFalse();
        sidecar.setStarted(true);
        assertThat(WarmPoolClaim.ready(pool)).isTrue();

        Rollout r = interactive("r1");
        String member = TopologyPlanner.plan(env.getSpec()).get(0).podName("r1");
        claimed(pool, r);
        assertThat(WarmPoolClaim.claimNotTaken(pool)).isTrue();
        RolloutDecision d = RolloutStateMachine.decide(r, env, true, Map.of(member, pool), T0.plusSeconds(1));
        assertThat(d.phase()).isEqualTo(PhaseName.Initializing);
        assertThat(d.message()).contains("taking the claim");

        running(pool, true);
        d = RolloutStateMachine.decide(r, env, true, Map.of(member, pool), T0.plusSeconds(2));
        assertThat(d.phase()).isEqualTo(PhaseName.Running);
    }

    @Test
    void aWarmPodLostBeforeItsClaimWasTakenIsReplacedColdAndNeverClaimedAgain() {
        RLEnvironment env = pooled();
        Rollout r = interactive("r1");
        r.setStatus(new RolloutStatus());
        r.getStatus().phase = PhaseName.Initializing;
        r.getStatus().start = WarmStart.WARM;
        RolloutDecision d = RolloutStateMachine.decide(r, env, true, Map.of(), T0.plusSeconds(3));
        assertThat(d.create()).as("the member is created again").hasSize(1);
        // the Rollout had a warm pod once: no second claim, whatever the pool holds (it starts cold)
        Pod ready = running(new WarmPodBuilder(OperatorSettings.defaults()).build(env), false);
        WarmStart warm = new WarmStart(OperatorSettings.defaults(), () -> {
            throw new AssertionError("a Rollout whose warm pod was lost looked at the pool (" + ready.getMetadata().getName() + ")");
        }, new dev.crucible.controllers.metrics.WarmPoolMetrics(new io.micrometer.core.instrument.simple.SimpleMeterRegistry()));
        assertThat(warm.claim(r, env, d, null, T0.plusSeconds(3))).isNull();

        r.getStatus().phase = PhaseName.Running; // lost once its sidecar had taken the claim: the attempt may have begun
        d = RolloutStateMachine.decide(r, env, true, Map.of(), T0.plusSeconds(4));
        assertThat(d.phase()).isEqualTo(PhaseName.Failed);
        assertThat(d.create()).isEmpty();
    }
}
