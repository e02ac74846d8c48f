package dev.crucible.e2e;

import dev.crucible.contract.TerminalOutcome;
import dev.crucible.contract.PhaseName;
import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.rollout.RolloutStatus;
import dev.crucible.cli.run.AttemptOutcome;
import dev.crucible.controllers.Fixtures;
import dev.crucible.controllers.config.OperatorSettings;
import dev.crucible.controllers.rollout.MemberPlan;
import dev.crucible.controllers.rollout.RolloutDecision;
import dev.crucible.controllers.common.RolloutLabels;
import dev.crucible.controllers.rollout.RolloutPodBuilder;
import dev.crucible.controllers.rollout.RolloutStateMachine;
import dev.crucible.controllers.rollout.TopologyPlanner;
import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.monitor.Finding;
import dev.crucible.verifier.pod.PodResult;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

/**
 * The "a test feeds the same facts to both": each row is what happened in one rollout, fed to the
 * local runtime's step from what an attempt observed to its phase ({@link AttemptOutcome#decide}, what
 * {@code LocalRollout} ends with) and to the cluster's (the termination message the pod sidecar writes,
 * {@link PodResult#terminationMessage}, read with the pod's state and the operator's clock by
 * {@link RolloutStateMachine#decide}). Both must end with the row's phase and reason. No API server: pure functions.
 */
class OutcomeParityTest {
    private static final Instant CREATED = Instant.parse("2026-01-01T00:00:00Z");
    private static final long DEADLINE_S = 600;
    private static final Finding CRITICAL = new Finding("test-skip-injection", "critical", "conftest.py", "skip added", "t", 2, "flag", null);
    private static final Finding TERMINATED = new Finding("protected-path-modified", "high", "tests/test_ops.py", "sha256 changed", "t", 3,
            "terminate", null);
    private static final Finding INFO = new Finding("network-blocked", "info", null, "connect refused", "t", 1, "flag", null);
    private static final String MEMORY = "memory: the agent's cgroup ran past resources.memory (1Gi)";

    /**
     * What happened. {@code verdict} null: grading did not run ({@code gradeError} says why); {@code limit}: a
     * resource limit ended the agent (locally the sandbox's cgroup, in a pod the kubelet's OOM kill);
     * {@code sidecarWrote} false: the deadline passed before the sidecar wrote a result; {@code seenLate}: the
     * operator reads the result only after the deadline (it was down), though the sidecar wrote it in time.
     */
    record Facts(String name, String setupError, List<Finding> findings, boolean deadlinePassed, String limit, String verdict,
                 String gradeError, Integer agentExit, boolean sidecarWrote, boolean seenLate, String phase, String reason) {
        @Override
        public String toString() { return name; }
    }

    private static Facts row(String name, List<Finding> findings, boolean deadline, String limit, String verdict, Integer exit,
                             String phase, String reason) {
        return new Facts(name, null, findings, deadline, limit, verdict, verdict == null ? "grading failed: pytest crashed" : null, exit,
                true, false, phase, reason);
    }

    static List<Facts> table() {
        List<Facts> t = new ArrayList<>(List.of(
                new Facts("setup failed", "the setup script exited with status 1; see setup.log", List.of(), false, null, null,
                        null, null, true, false, "Failed", "SetupFailed"),
                row("a counted finding", List.of(CRITICAL), false, null, "pass", 0, "Hacked", "RewardHackDetected"),
                row("a counted finding under terminate", List.of(TERMINATED), false, null, "hacked", null, "Hacked", "RewardHackDetected"),
                row("an info-only finding", List.of(INFO), false, null, "pass", 0, "Succeeded", "Verified"),
                row("deadline passed", List.of(), true, null, "pass", null, "TimedOut", "DeadlineExceeded"),
                row("deadline passed, info-only finding", List.of(INFO), true, null, "pass", null, "TimedOut", "DeadlineExceeded"),
                row("deadline passed with a counted finding", List.of(CRITICAL), true, null, "pass", null, "Hacked", "RewardHackDetected"),
                row("deadline passed, not graded", List.of(), true, null, null, null, "TimedOut", "DeadlineExceeded"),
                row("resource limit exceeded", List.of(), false, MEMORY, "pass", 137, "Failed", "ResourceLimitExceeded"),
                row("resource limit with a counted finding", List.of(CRITICAL), false, MEMORY, "pass", 137, "Hacked", "RewardHackDetected"),
                row("resource limit and deadline", List.of(), true, MEMORY, "fail", 137, "TimedOut", "DeadlineExceeded"),
                row("no grade", List.of(), false, null, null, 0, "Failed", "VerificationFailed"),
                row("no grade with a counted finding", List.of(CRITICAL), false, null, null, 0, "Hacked", "RewardHackDetected"),
                row("grading error", List.of(), false, null, "error", 0, "Failed", "VerificationFailed"),
                row("grading error with a counted finding", List.of(CRITICAL), false, null, "error", 0, "Hacked", "RewardHackDetected"),
                row("graded 0", List.of(), false, null, "fail", 0, "Succeeded", "Verified"),
                row("graded 1", List.of(), false, null, "pass", 0, "Succeeded", "Verified"),
                row("agent non-zero exit but graded", List.of(), false, null, "pass", 3, "Succeeded", "Verified")));
        // the operator's deadline passed while the sidecar had not written (the agent still ran): nothing to outrank it
        t.add(new Facts("deadline passed, the sidecar wrote nothing", null, List.of(), true, null, null, null, null, false, false,
                "TimedOut", "DeadlineExceeded"));
        // graded well within the deadline; a restarted operator must decide as it would have then
        t.add(new Facts("graded in time, read after the deadline", null, List.of(), false, null, "pass", null, 0, true, true,
                "Succeeded", "Verified"));
        return t;
    }

    @Test
    void theLocalRuntimeAndTheClusterEndAlike() {
        SoftAssertions soft = new SoftAssertions(); // every row that disagrees, not only the first
        for (Facts f : table()) {
            TerminalOutcome local = local(f).decide("flag", DEADLINE_S);
            RolloutDecision cluster = cluster(f);
            soft.assertThat(local.phase().name() + "/" + local.reason()).as("local: " + f).isEqualTo(f.phase() + "/" + f.reason());
            soft.assertThat(cluster.phase().name() + "/" + cluster.reason()).as("cluster: " + f).isEqualTo(f.phase() + "/" + f.reason());
            soft.assertThat(cluster.stopPods()).as("cluster stops the pods: " + f).isTrue();
        }
        soft.assertAll();
    }

    /**
     * The agent still ran at the deadline and the live monitor had seen a counted finding: locally that is
     * Hacked. The sidecar ends its episode at the operator's deadline (CRUCIBLE_DEADLINE_AT) and grades; the
     * operator waits for that result instead of calling it TimedOut first, and then ends it Hacked too.
     */
    @Test
    void aFindingHeldByAVerifierStillGradingAtTheDeadlineIsNotLost() {
        Facts f = table().stream().filter(x -> x.name().equals("deadline passed with a counted finding")).findFirst().orElseThrow();
        assertThat(local(f).decide("flag", DEADLINE_S).phase()).isEqualTo(PhaseName.Hacked);
        RLEnvironment env = environment();
        Rollout r = rollout();
        Map<String, Pod> pods = podsOf(r, env);
        Pod leader = pods.values().iterator().next();
        assertThat(leader.getSpec().getContainers().stream().filter(c -> c.getName().equals(RolloutLabels.VERIFIER_CONTAINER))
                .flatMap(c -> c.getEnv().stream()).filter(v -> v.getName().equals("CRUCIBLE_DEADLINE_AT")).findFirst().orElseThrow()
                .getValue()).isEqualTo(CREATED.plusSeconds(DEADLINE_S).toString());
        leader.getStatus().setContainerStatuses(new ArrayList<>(List.of(new ContainerStatusBuilder().withName(RolloutLabels.VERIFIER_CONTAINER)
                .withNewState().withNewRunning().endRunning().endState().build())));
        RolloutDecision grading = RolloutStateMachine.decide(r, env, true, pods, CREATED.plusSeconds(DEADLINE_S + 1));
        assertThat(grading.phase().isTerminal()).as(grading.reason()).isFalse();
        assertThat(cluster(f).phase()).isEqualTo(PhaseName.Hacked); // its result, written past the deadline
    }

    /** Ctrl-C is the local runtime's alone (deleting a Rollout gives it no end phase): first, whatever else happened. */
    @Test
    void interruptedIsLocalAndOutranksEverything() {
        AttemptOutcome o = new AttemptOutcome(true, "setup exited 1", true, MEMORY, null, report("pass", List.of(CRITICAL)), List.of(CRITICAL));
        TerminalOutcome d = o.decide("flag", DEADLINE_S);
        assertThat(d.phase()).isEqualTo(PhaseName.Failed);
        assertThat(d.reason()).isEqualTo("Interrupted");
    }

    /** What LocalRollout records: the agent was killed at the deadline (no exit status) or by its limit; the live monitor's findings. */
    private static AttemptOutcome local(Facts f) {
        VerifyReport report = f.verdict() == null || f.setupError() != null ? null : report(f.verdict(), f.findings());
        Integer exit = f.deadlinePassed() && f.limit() == null ? null : f.agentExit();
        return new AttemptOutcome(false, f.setupError(), f.deadlinePassed(), f.limit(), exit, report, f.findings());
    }

    /** The pod's state as the operator observes it, then one reconcile's decision. */
    private static RolloutDecision cluster(Facts f) {
        RLEnvironment env = environment();
        Rollout r = rollout();
        Map<String, Pod> pods = podsOf(r, env);
        Pod leader = pods.get(TopologyPlanner.plan(env.getSpec()).get(0).podName(r.getMetadata().getName()));
        Instant ended = f.deadlinePassed() ? CREATED.plusSeconds(DEADLINE_S + 5) : CREATED.plusSeconds(60);
        List<ContainerStatus> statuses = new ArrayList<>();
        if (f.setupError() == null && (f.agentExit() != null || f.limit() != null)) {
            // the kubelet ends a container past its memory limit OOMKilled, status 137
            statuses.add(terminated(RolloutLabels.AGENT_CONTAINER, f.limit() != null ? 137 : f.agentExit(),
                    f.limit() != null ? "OOMKilled" : f.agentExit() == 0 ? "Completed" : "Error", null, ended.minusSeconds(5)));
        }
        if (f.sidecarWrote()) statuses.add(terminated(RolloutLabels.VERIFIER_CONTAINER, 0, "Completed", sidecarMessage(f), ended));
        leader.getStatus().setContainerStatuses(statuses);
        return RolloutStateMachine.decide(r, env, true, pods, f.seenLate() ? CREATED.plusSeconds(DEADLINE_S + 100) : ended.plusSeconds(1));
    }

    /** The rollout's pods as the operator builds them, bound and Running. */
    private static Map<String, Pod> podsOf(Rollout r, RLEnvironment env) {
        Map<String, Pod> pods = new HashMap<>();
        List<MemberPlan> plan = TopologyPlanner.plan(env.getSpec());
        RolloutPodBuilder builder = new RolloutPodBuilder(OperatorSettings.defaults());
        for (MemberPlan m : plan) {
            Pod p = builder.build(r, env, m, plan, false, null);
            p.getSpec().setNodeName("node-0");
            p.setStatus(new PodStatusBuilder().withPhase("Running").withPodIP("10.0.0.1").build());
            pods.put(p.getMetadata().getName(), p);
        }
        return pods;
    }

    /** What PodSidecar writes; a setup failure as a sidecar that ran setup would report it (phase Failed, reason SetupFailed). */
    private static String sidecarMessage(Facts f) {
        if (f.setupError() != null) {
            return "{\"phase\":\"Failed\",\"reason\":\"SetupFailed\",\"turns\":0,\"message\":\"" + f.setupError() + "\"}";
        }
        VerifyReport report = f.verdict() == null ? null : report(f.verdict(), f.findings());
        Integer exit = f.limit() != null ? null : f.agentExit(); // an OOM-killed wrapper writes no exit marker
        return PodResult.terminationMessage(report, f.findings(), f.deadlinePassed(), DEADLINE_S, exit, f.gradeError(), 4);
    }

    private static VerifyReport report(String verdict, List<Finding> findings) {
        double reward = "pass".equals(verdict) ? 1.0 : 0.0;
        return new VerifyReport("env", reward, verdict, null, "error".equals(verdict) ? "pytest missing" : null,
                VerifyReport.counted(findings) > 0 && !"hacked".equals(verdict), "test-suite", "binary", null,
                new VerifyReport.Tests(4, 0, 0, 4, List.of()), null, findings, null, null);
    }

    private static ContainerStatus terminated(String name, int exit, String reason, String message, Instant finishedAt) {
        return new ContainerStatusBuilder().withName(name).withNewState().withNewTerminated().withExitCode(exit).withReason(reason)
                .withMessage(message).withFinishedAt(finishedAt.toString()).endTerminated().endState().build();
    }

    private static RLEnvironment environment() {
        return Fixtures.cpuEnvironment("env");
    }

    /** The shared fixture's Rollout (created at CREATED, deadline DEADLINE_S), its agent embedded, Verifying. */
    private static Rollout rollout() {
        Rollout r = Fixtures.rollout("r1", "env");
        RolloutStatus status = new RolloutStatus();
        status.phase = PhaseName.Verifying;
        r.setStatus(status);
        return r;
    }
}
