package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** How an attempt's terminal phase is decided. */
class PhaseTest {
    private static Phase.Facts facts(boolean interrupted, String setupError, int findings, boolean timedOut, String verdict, Integer exit) {
        return new Phase.Facts(interrupted, setupError, findings, "flag", timedOut, 60, verdict, null, exit);
    }

    @Test
    void gradedWithoutFindingIsSucceededWhateverTheReward() {
        assertThat(Phase.terminal(facts(false, null, 0, false, "pass", 0)).phase()).isEqualTo(Phase.Succeeded);
        assertThat(Phase.terminal(facts(false, null, 0, false, "fail", 0)).phase()).isEqualTo(Phase.Succeeded);
    }

    @Test
    void aFindingOutranksTheDeadlineAndTheDeadlineOutranksAGrade() {
        assertThat(Phase.terminal(facts(false, null, 1, true, "pass", null)).phase()).isEqualTo(Phase.Hacked);
        assertThat(Phase.terminal(facts(false, null, 0, true, "pass", null)).phase()).isEqualTo(Phase.TimedOut);
    }

    @Test
    void errorsAreFailed() {
        assertThat(Phase.terminal(facts(false, "setup exited 1", 0, false, null, null)).reason()).isEqualTo("SetupFailed");
        assertThat(Phase.terminal(facts(false, null, 0, false, "error", 0)).reason()).isEqualTo("VerificationFailed");
        assertThat(Phase.terminal(facts(false, null, 0, false, "fail", 3)).reason()).isEqualTo("AgentFailed");
        assertThat(Phase.terminal(facts(true, null, 2, true, null, null)).reason()).isEqualTo("Interrupted");
    }

    @Test
    void terminalPhases() {
        assertThat(Phase.Verifying.isTerminal()).isFalse();
        assertThat(Phase.TimedOut.isTerminal()).isTrue();
    }
}
