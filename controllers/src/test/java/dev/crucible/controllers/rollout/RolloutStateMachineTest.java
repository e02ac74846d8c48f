package dev.crucible.controllers.rollout;

import dev.crucible.contract.PhaseName;
import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.rollout.RolloutStatus;
import dev.crucible.contract.OutcomeFacts;
import dev.crucible.contract.OutcomeReasons;
import dev.crucible.contract.TerminalOutcome;
import dev.crucible.controllers.Fixtures;
import dev.crucible.controllers.config.OperatorSettings;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RolloutStateMachineTest {

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

    private static void bind(Map<String, Pod> pods, String phase) {
        int i = 0;
        for (Pod p : pods.values()) {
            p.getSpec().setNodeName("node-" + i++);
            p.setStatus(new io.fabric8.kubernetes.api.model.PodStatusBuilder().withPhase(phase).withPodIP("10.0.0." + i).build());
        }
    }

    private static void terminate(Pod p, String container, String message) {
        var statuses = new java.util.ArrayList<>(p.getStatus().getContainerStatuses() == null ? List.of()
                : p.getStatus().getContainerStatuses());
        statuses.add(new ContainerStatusBuilder().withName(container).withNewState().withNewTerminated()
                .withExitCode(0).withMessage(message).endTerminated().endState().build());
        p.getStatus().setContainerStatuses(statuses);
    }

    private static RolloutStatus status(PhaseName phase) {
        RolloutStatus s = new RolloutStatus();
        s.phase = phase;
        return s;
    }

    @Test
    void missingEnvironmentWaitsWithAnActionableReason() {
        Rollout r = Fixtures.rollout("r1", "env");
        RolloutDecision d = RolloutStateMachine.decide(r, null, null, Map.of(), T0.plusSeconds(1));
        assertThat(d.phase()).isEqualTo(PhaseName.Pending);
        assertThat(d.reason()).isEqualTo(Reasons.ENVIRONMENT_NOT_FOUND);
        assertThat(d.message()).contains("env").contains("spec.environmentRef.name");
        assertThat(d.requeueAfter()).isNotNull();
        assertThat(RolloutStateMachine.decide(r, Fixtures.cpuEnvironment("env"), false, Map.of(), T0).reason())
                .isEqualTo(Reasons.ENVIRONMENT_INVALID);
    }

    @Test
    void fullLifecycleOfASimpleRollout() {
        RLEnvironment env = Fixtures.cpuEnvironment("env");
        Rollout r = Fixtures.rollout("r1", "env");
        RolloutDecision create = RolloutStateMachine.decide(r, env, true, Map.of(), T0.plusSeconds(1));
        assertThat(create.phase()).isEqualTo(PhaseName.Pending);
        assertThat(create.create()).hasSize(1);
        assertThat(create.gateNew()).isFalse();
        assertThat(create.podsComplete()).isTrue();

        Map<String, Pod> pods = pods(r, env, false);
        assertThat(RolloutStateMachine.decide(r, env, true, pods, T0.plusSeconds(2)).reason()).isEqualTo(Reasons.SCHEDULING);

        bind(pods, "Pending");
        assertThat(RolloutStateMachine.decide(r, env, true, pods, T0.plusSeconds(3)).phase()).isEqualTo(PhaseName.Initializing);

        bind(pods, "Running");
        RolloutDecision running = RolloutStateMachine.decide(r, env, true, pods, T0.plusSeconds(4));
        assertThat(running.phase()).isEqualTo(PhaseName.Running);
        assertThat(running.members()).singleElement().satisfies(m -> assertThat(m.node).isEqualTo("node-0"));
        assertThat(running.requeueAfter().getSeconds()).isEqualTo(596);

        Pod pod = pods.get("r1-main-0");
        terminate(pod, "agent", "");
        assertThat(RolloutStateMachine.decide(r, env, true, pods, T0.plusSeconds(5)).phase()).isEqualTo(PhaseName.Verifying);

        terminate(pod, "verifier", "{\"reward\":1.0,\"verdict\":\"pass\",\"turns\":3,\"phase\":\"Succeeded\"}");
        RolloutDecision done = RolloutStateMachine.decide(r, env, true, pods, T0.plusSeconds(6));
        assertThat(done.phase()).isEqualTo(PhaseName.Succeeded);
        assertThat(done.reason()).isEqualTo(Reasons.VERIFIED);
        assertThat(done.result().reward()).isEqualTo(1.0);
        assertThat(done.stopPods()).isTrue();
    }

    @Test
    void deadlineEndsTheRolloutTimedOutAndStopsPods() {
        RLEnvironment env = Fixtures.cpuEnvironment("env");
        Rollout r = Fixtures.rollout("r1", "env");
        r.setStatus(status(PhaseName.Running));
        RolloutDecision d = RolloutStateMachine.decide(r, env, true, pods(r, env, false), T0.plusSeconds(600));
        assertThat(d.phase()).isEqualTo(PhaseName.TimedOut);
        assertThat(d.reason()).isEqualTo(Reasons.DEADLINE_EXCEEDED);
        assertThat(d.stopPods()).isTrue();
    }

    /** A result the sidecar wrote before the deadline passed still counts: a counted finding outranks the deadline. */
    @Test
    void aHackedResultStaysHackedPastTheDeadlineAsItWouldLocally() {
        RLEnvironment env = Fixtures.cpuEnvironment("env");
        Rollout r = Fixtures.rollout("r1", "env");
        r.setStatus(status(PhaseName.Verifying));
        Map<String, Pod> pods = pods(r, env, false);
        bind(pods, "Running");
        Pod pod = pods.get("r1-main-0");
        terminate(pod, "agent", "");
        terminate(pod, "verifier", "{\"phase\":\"Hacked\",\"reason\":\"RewardHackDetected\",\"reward\":0.0,\"testReward\":1.0,"
                + "\"verdict\":\"pass\",\"countedFindings\":3,\"hackFindings\":[{\"detector\":\"test-skip-injection\","
                + "\"severity\":\"critical\",\"action\":\"flag\"}]}");
        RolloutDecision late = RolloutStateMachine.decide(r, env, true, pods, T0.plusSeconds(601));
        TerminalOutcome local = TerminalOutcome.of(OutcomeFacts.none().withFindings(3, "flag").withTimedOut(true, 600).withGrade("pass", null));
        assertThat(late.phase().name()).isEqualTo(local.phase().name()).isEqualTo("Hacked");
        assertThat(late.reason()).isEqualTo(local.reason());
        assertThat(late.message()).isEqualTo(local.message()); // 3 findings: the count survives a findings list cut to fit 4 KiB
        assertThat(late.result().testReward()).isEqualTo(1.0);
        assertThat(late.stopPods()).isTrue();
    }

    /**
     * At the deadline the verifier is still grading what the agent left (it ends its episode at the same
     * deadline): the operator waits for its result, so the findings in it make the run Hacked as locally,
     * and calls it TimedOut only when the grace passes without one.
     */
    @Test
    void atTheDeadlineARunningVerifierIsGivenAMomentToReport() {
        RLEnvironment env = Fixtures.cpuEnvironment("env");
        Rollout r = Fixtures.rollout("r1", "env");
        r.setStatus(status(PhaseName.Running));
        Map<String, Pod> pods = pods(r, env, false);
        bind(pods, "Running");
        Pod pod = pods.get("r1-main-0");
        pod.getStatus().setContainerStatuses(new java.util.ArrayList<>(List.of(new ContainerStatusBuilder().withName("verifier")
                .withNewState().withNewRunning().endRunning().endState().build())));
        RolloutDecision waiting = RolloutStateMachine.decide(r, env, true, pods, T0.plusSeconds(601));
        assertThat(waiting.phase()).isEqualTo(PhaseName.Running);
        assertThat(waiting.reason()).isEqualTo(Reasons.VERIFIER_FINISHING);
        assertThat(waiting.stopPods()).isFalse();
        assertThat(waiting.requeueAfter()).isPositive().isLessThanOrEqualTo(java.time.Duration.ofSeconds(2));

        RolloutDecision gaveUp = RolloutStateMachine.decide(r, env, true, pods, T0.plusSeconds(600).plus(RolloutStateMachine.VERIFIER_GRACE));
        assertThat(gaveUp.phase()).isEqualTo(PhaseName.TimedOut);
        assertThat(gaveUp.stopPods()).isTrue();

        pod.getStatus().setContainerStatuses(new java.util.ArrayList<>());
        terminate(pod, "verifier", "{\"phase\":\"Hacked\",\"reason\":\"RewardHackDetected\",\"verdict\":\"fail\",\"reward\":0.0,"
                + "\"countedFindings\":1,\"hackFindings\":[{\"detector\":\"protected-path-modified\",\"severity\":\"high\"}]}");
        assertThat(RolloutStateMachine.decide(r, env, true, pods, T0.plusSeconds(620)).phase()).isEqualTo(PhaseName.Hacked);
    }

    /** The restore gate and the hack snapshot are inputs of the decision, not changes made to it afterwards. */
    @Test
    void theRestoreGateAndTheHackSnapshotAreInputsOfTheDecision() {
        RLEnvironment env = Fixtures.cpuEnvironment("env");
        Rollout r = Fixtures.rollout("r1", "env");
        RolloutDecision refused = RolloutStateMachine.decide(r, env, true, Map.of(), T0.plusSeconds(1), null,
                RestoreGate.Result.fail(Reasons.GPU_MISMATCH, "snapshotted on H100"), false);
        assertThat(refused.phase()).isEqualTo(PhaseName.Failed);
        assertThat(refused.reason()).isEqualTo(Reasons.GPU_MISMATCH);
        RolloutDecision notReady = RolloutStateMachine.decide(r, env, true, Map.of(), T0.plusSeconds(1), null,
                RestoreGate.Result.waitFor("snapshot s1 is Pending"), false);
        assertThat(notReady.phase()).isEqualTo(PhaseName.Pending);
        assertThat(notReady.create()).as("no pod before the snapshot is ready").isEmpty();

        r.setStatus(status(PhaseName.Verifying));
        Map<String, Pod> pods = pods(r, env, false);
        bind(pods, "Running");
        terminate(pods.get("r1-main-0"), "verifier", "{\"phase\":\"Hacked\",\"reason\":\"RewardHackDetected\",\"verdict\":\"fail\","
                + "\"countedFindings\":1}");
        RolloutDecision held = RolloutStateMachine.decide(r, env, true, pods, T0.plusSeconds(60), null, null, true);
        assertThat(held.phase()).isEqualTo(PhaseName.Hacked);
        assertThat(held.stopPods()).as("the pods wait for the hack snapshot").isFalse();
        assertThat(held.requeueAfter()).isNotNull();
        assertThat(RolloutStateMachine.decide(r, env, true, pods, T0.plusSeconds(60), null, null, false).stopPods()).isTrue();
    }

    @Test
    void theSidecarIsToldTheOperatorsDeadline() {
        RLEnvironment env = Fixtures.cpuEnvironment("env");
        Rollout r = Fixtures.rollout("r1", "env");
        Pod pod = pods(r, env, false).get("r1-main-0");
        var vars = pod.getSpec().getContainers().stream().filter(c -> c.getName().equals("verifier")).findFirst().orElseThrow().getEnv();
        assertThat(vars).anySatisfy(v -> {
            assertThat(v.getName()).isEqualTo("CRUCIBLE_DEADLINE_AT");
            assertThat(java.time.Instant.parse(v.getValue())).isEqualTo(RolloutStateMachine.createdAt(r, null).plusSeconds(600));
        });
    }

    /** The sidecar's facts go through the contract's function: same facts, same outcome as the CLI. */
    @Test
    void verifierResultsEndAsTheContractSays() {
        RLEnvironment env = Fixtures.cpuEnvironment("env");
        record Case(String json, OutcomeFacts facts) {}
        OutcomeFacts base = OutcomeFacts.none().withTimedOut(false, 600);
        List<Case> cases = List.of(
                new Case("{\"phase\":\"Succeeded\",\"verdict\":\"fail\",\"reward\":0.0}", base.withGrade("fail", null)),
                new Case("{\"phase\":\"TimedOut\",\"verdict\":\"pass\",\"reward\":1.0}", base.withTimedOut(true, 600).withGrade("pass", null)),
                new Case("{\"phase\":\"Failed\",\"reason\":\"ResourceLimitExceeded\",\"verdict\":\"pass\",\"message\":\"memory\"}",
                        base.withLimitExceeded(true, "memory").withGrade("pass", null)),
                new Case("{\"phase\":\"Failed\",\"verdict\":\"error\",\"message\":\"pytest missing\"}", base.withGrade("error", "pytest missing")),
                // a custom verifier that writes no phase: its facts decide, as locally (a graded fail is Succeeded, not Failed)
                new Case("{\"verdict\":\"fail\",\"reward\":0.0}", base.withGrade("fail", null)),
                new Case("{\"verdict\":\"pass\",\"countedFindings\":1}", base.withFindings(1, "flag").withGrade("pass", null)),
                new Case("{\"reward\":0.0}", base),
                new Case("{\"phase\":\"Failed\",\"reason\":\"SetupFailed\",\"message\":\"setup exited 1\"}", base.withSetupError("setup exited 1")),
                // an info finding is recorded but never counts
                new Case("{\"phase\":\"Succeeded\",\"verdict\":\"pass\",\"hackFindings\":[{\"detector\":\"network-blocked\",\"severity\":\"info\"}]}",
                        base.withGrade("pass", null)));
        for (Case c : cases) {
            Rollout r = Fixtures.rollout("r1", "env");
            r.setStatus(status(PhaseName.Verifying));
            Map<String, Pod> pods = pods(r, env, false);
            bind(pods, "Running");
            terminate(pods.get("r1-main-0"), "verifier", c.json());
            RolloutDecision d = RolloutStateMachine.decide(r, env, true, pods, T0.plusSeconds(10));
            TerminalOutcome local = TerminalOutcome.of(c.facts());
            assertThat(d.phase().name()).as(c.json()).isEqualTo(local.phase().name());
            assertThat(d.reason()).as(c.json()).isEqualTo(local.reason());
        }
    }

    /**
     * A Crucible sidecar writes the facts it decided from: the operator decides from them plus its own (the deadline),
     * not from the reason string. A refusal in the pod stays a refusal (read back from its reason, a Failed phase with
     * no grade would be a grading failure), and the operator's deadline still counts on top of the sidecar's facts.
     */
    @Test
    void theSidecarsFactsDecideNotItsReasonStrings() {
        RLEnvironment env = Fixtures.cpuEnvironment("env");
        record Case(String json, java.time.Instant now, PhaseName phase, String reason) {}
        List<Case> cases = List.of(
                new Case("{\"phase\":\"Failed\",\"reason\":\"SandboxUnavailable\",\"message\":\"no box\",\"facts\":{\"refused\":true}}",
                        T0.plusSeconds(10), PhaseName.Failed, OutcomeReasons.SANDBOX_UNAVAILABLE),
                new Case("{\"phase\":\"Failed\",\"reason\":\"SandboxUnavailable\",\"message\":\"no box\"}",
                        T0.plusSeconds(10), PhaseName.Failed, OutcomeReasons.VERIFICATION_FAILED),
                new Case("{\"phase\":\"Failed\",\"reason\":\"Whatever\",\"verdict\":\"pass\",\"message\":\"disk\",\"facts\":{\"limitExceeded\":true}}",
                        T0.plusSeconds(10), PhaseName.Failed, OutcomeReasons.RESOURCE_LIMIT_EXCEEDED),
                new Case("{\"phase\":\"Succeeded\",\"verdict\":\"pass\",\"reward\":1.0,\"facts\":{\"policy\":\"flag\"}}",
                        T0.plusSeconds(10), PhaseName.Succeeded, OutcomeReasons.VERIFIED),
                new Case("{\"phase\":\"Succeeded\",\"verdict\":\"pass\",\"reward\":1.0,\"facts\":{\"policy\":\"flag\"}}",
                        T0.plusSeconds(700), PhaseName.TimedOut, OutcomeReasons.DEADLINE_EXCEEDED));
        for (Case c : cases) {
            Rollout r = Fixtures.rollout("r1", "env");
            r.setStatus(status(PhaseName.Verifying));
            Map<String, Pod> pods = pods(r, env, false);
            bind(pods, "Running");
            terminate(pods.get("r1-main-0"), "verifier", c.json());
            RolloutDecision d = RolloutStateMachine.decide(r, env, true, pods, c.now());
            assertThat(d.phase()).as(c.json()).isEqualTo(c.phase());
            assertThat(d.reason()).as(c.json()).isEqualTo(c.reason());
        }
    }

    @Test
    void podLostWhileRunningFailsInsteadOfRecreating() {
        RLEnvironment env = Fixtures.cpuEnvironment("env");
        Rollout r = Fixtures.rollout("r1", "env");
        r.setStatus(status(PhaseName.Running));
        RolloutDecision d = RolloutStateMachine.decide(r, env, true, Map.of(), T0.plusSeconds(10));
        assertThat(d.phase()).isEqualTo(PhaseName.Failed);
        assertThat(d.reason()).isEqualTo(Reasons.MEMBER_LOST);
        assertThat(d.create()).isEmpty();
    }

    @Test
    void invalidVerifierResultFailsWithTheParseError() {
        RLEnvironment env = Fixtures.cpuEnvironment("env");
        Rollout r = Fixtures.rollout("r1", "env");
        Map<String, Pod> pods = pods(r, env, false);
        bind(pods, "Running");
        terminate(pods.get("r1-main-0"), "verifier", "oops");
        RolloutDecision d = RolloutStateMachine.decide(r, env, true, pods, T0.plusSeconds(10));
        assertThat(d.phase()).isEqualTo(PhaseName.Failed);
        assertThat(d.reason()).isEqualTo(Reasons.VERIFIER_RESULT_INVALID);
    }

    @Test
    void terminalPhaseIsFinal() {
        RLEnvironment env = Fixtures.cpuEnvironment("env");
        Rollout r = Fixtures.rollout("r1", "env");
        r.setStatus(status(PhaseName.Succeeded));
        RolloutDecision d = RolloutStateMachine.decide(r, env, true, Map.of(), T0.plusSeconds(10_000));
        assertThat(d.phase()).isEqualTo(PhaseName.Succeeded);
        assertThat(d.create()).isEmpty();
        assertThat(d.requeueAfter()).isNull();
    }

    @Test
    void statusKeepsTimingsAndConditionTransitions() {
        RLEnvironment env = Fixtures.cpuEnvironment("env");
        Rollout r = Fixtures.rollout("r1", "env");
        RolloutStatus s1 = RolloutStatusBuilder.build(r, RolloutStateMachine.decide(r, env, true, Map.of(), T0.plusMillis(40)),
                T0.plusMillis(40));
        assertThat(s1.timings.createToPodsMillis).isEqualTo(40);
        assertThat(s1.observedGeneration).isEqualTo(1L);
        r.setStatus(s1);
        Map<String, Pod> pods = pods(r, env, false);
        bind(pods, "Running");
        RolloutStatus s2 = RolloutStatusBuilder.build(r, RolloutStateMachine.decide(r, env, true, pods, T0.plusSeconds(5)),
                T0.plusSeconds(5));
        assertThat(s2.timings.createToPodsMillis).isEqualTo(40);
        assertThat(s2.timings.createToRunningMillis).isEqualTo(5000);
        var progressing = dev.crucible.controllers.status.Conditions.find(s2.conditions, "Progressing");
        assertThat(progressing.getLastTransitionTime()).isEqualTo("2026-01-01T00:00:00Z");
        var ready = dev.crucible.controllers.status.Conditions.find(s2.conditions, "Ready");
        assertThat(ready.getStatus()).isEqualTo("True");
        assertThat(ready.getLastTransitionTime()).isEqualTo("2026-01-01T00:00:05Z");
    }
}
