package dev.crucible.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The order of terminal outcomes, one rule at a time against the rule after it. */
class TerminalOutcomeTest {
    private static final OutcomeFacts PASSED = OutcomeFacts.none().withGrade("pass", null).withAgentExit(0);

    @Test
    void interruptedOutranksEverything() {
        TerminalOutcome o = TerminalOutcome.of(PASSED.withInterrupted(true).withSetupError("x").withFindings(2, "flag").withTimedOut(true, 5));
        assertThat(o.reason()).isEqualTo(OutcomeReasons.INTERRUPTED);
        assertThat(o.phase()).isEqualTo(PhaseName.Failed);
    }

    @Test
    void aRefusedRunIsFailedSandboxUnavailableWhateverElseWasSeen() {
        // a refused run never graded: a finding or grade read from it must not turn it into Hacked
        TerminalOutcome o = TerminalOutcome.of(PASSED.withRefusal("no box can be made here").withSetupError("x").withFindings(1, "flag").withTimedOut(true, 5));
        assertThat(o.phase()).isEqualTo(PhaseName.Failed);
        assertThat(o.reason()).isEqualTo(OutcomeReasons.SANDBOX_UNAVAILABLE);
        assertThat(o.message()).isEqualTo("no box can be made here");
        assertThat(TerminalOutcome.of(PASSED.withRefusal("r").withInterrupted(true)).reason()).isEqualTo(OutcomeReasons.INTERRUPTED);
    }

    @Test
    void setupFailureOutranksAFinding() {
        assertThat(TerminalOutcome.of(PASSED.withSetupError("setup exited 1").withFindings(1, "flag")).reason()).isEqualTo(OutcomeReasons.SETUP_FAILED);
    }

    @Test
    void aCountedFindingOutranksTheDeadlineLimitsAndGradingErrors() {
        OutcomeFacts f = PASSED.withFindings(1, "flag").withTimedOut(true, 60).withLimitExceeded(true, "memory").withGrade("error", "boom");
        TerminalOutcome o = TerminalOutcome.of(f);
        assertThat(o.phase()).isEqualTo(PhaseName.Hacked);
        assertThat(o.reason()).isEqualTo(OutcomeReasons.HACK_DETECTED);
        assertThat(o.message()).contains("1 reward-hack finding", "flag");
    }

    @Test
    void theDeadlineOutranksALimitAndALimitOutranksAGrade() {
        assertThat(TerminalOutcome.of(PASSED.withTimedOut(true, 60).withLimitExceeded(true, "memory")).phase()).isEqualTo(PhaseName.TimedOut);
        TerminalOutcome limit = TerminalOutcome.of(PASSED.withLimitExceeded(true, "memory limit of 1 GiB reached"));
        assertThat(limit.phase()).isEqualTo(PhaseName.Failed);
        assertThat(limit.reason()).isEqualTo("ResourceLimitExceeded");
        assertThat(limit.message()).isEqualTo("memory limit of 1 GiB reached");
    }

    @Test
    void noGradeIsAVerificationFailure() {
        assertThat(TerminalOutcome.of(OutcomeFacts.none()).reason()).isEqualTo(OutcomeReasons.VERIFICATION_FAILED);
        assertThat(TerminalOutcome.of(PASSED.withGrade("error", "pytest missing")).message()).isEqualTo("pytest missing");
    }

    @Test
    void aGradedRunSucceedsWhateverTheScoreAndTheAgentsExitStatus() {
        assertThat(TerminalOutcome.of(PASSED.withGrade("fail", null)).phase()).isEqualTo(PhaseName.Succeeded);
        TerminalOutcome crashed = TerminalOutcome.of(PASSED.withAgentExit(3));
        assertThat(crashed.phase()).isEqualTo(PhaseName.Succeeded);
        assertThat(crashed.reason()).isEqualTo(OutcomeReasons.VERIFIED);
        assertThat(crashed.message()).contains("exited with status 3");
        assertThat(TerminalOutcome.of(PASSED).message()).doesNotContain("exited");
    }

    @Test
    void infoFindingsNeverCountAndTheRewardIsFlooredByCountedOnes() {
        assertThat(FindingSeverity.counted(List.of("info", "info"))).isZero();
        assertThat(FindingSeverity.counted(List.of("info", "low", "critical"))).isEqualTo(2);
        assertThat(Reward.trainable(1.0, 0, "binary")).isEqualTo(1.0);
        assertThat(Reward.trainable(1.0, 1, "binary")).isZero();
        assertThat(Reward.trainable(0.5, 2, "coderl")).isEqualTo(-1.0);
    }

    @Test
    void terminalPhases() {
        assertThat(PhaseName.Verifying.isTerminal()).isFalse();
        assertThat(PhaseName.Succeeded.isTerminal()).isTrue();
        assertThat(PhaseName.TimedOut.isTerminal()).isTrue();
    }
}
