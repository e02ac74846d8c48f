package dev.crucible.cli.run;

import dev.crucible.contract.TerminalOutcome;
import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.contract.OutcomeFacts;
import dev.crucible.contract.PhaseName;
import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.monitor.Finding;
import dev.crucible.verifier.pod.PodResult;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How an attempt's terminal phase is decided, and that the sidecar's pod result decides the same. */
class PhaseTest {
    private static OutcomeFacts facts(boolean interrupted, String setupError, int findings, boolean timedOut, String verdict, Integer exit) {
        return OutcomeFacts.none().withInterrupted(interrupted).withSetupError(setupError).withFindings(findings, "flag")
                .withTimedOut(timedOut, 60).withGrade(verdict, null).withAgentExit(exit);
    }

    @Test
    void gradedWithoutFindingIsSucceededWhateverTheReward() {
        assertThat(TerminalOutcome.of(facts(false, null, 0, false, "pass", 0)).phase()).isEqualTo(PhaseName.Succeeded);
        assertThat(TerminalOutcome.of(facts(false, null, 0, false, "fail", 0)).phase()).isEqualTo(PhaseName.Succeeded);
    }

    @Test
    void aFindingOutranksTheDeadlineAndTheDeadlineOutranksAGrade() {
        assertThat(TerminalOutcome.of(facts(false, null, 1, true, "pass", null)).phase()).isEqualTo(PhaseName.Hacked);
        assertThat(TerminalOutcome.of(facts(false, null, 0, true, "pass", null)).phase()).isEqualTo(PhaseName.TimedOut);
    }

    @Test
    void errorsAreFailed() {
        assertThat(TerminalOutcome.of(facts(false, "setup exited 1", 0, false, null, null)).reason()).isEqualTo("SetupFailed");
        assertThat(TerminalOutcome.of(facts(false, null, 0, false, "error", 0)).reason()).isEqualTo("VerificationFailed");
        assertThat(TerminalOutcome.of(facts(true, null, 2, true, null, null)).reason()).isEqualTo("Interrupted");
        assertThat(TerminalOutcome.of(facts(false, null, 0, false, "pass", 0).withLimitExceeded(true, "memory")).reason())
                .isEqualTo("ResourceLimitExceeded");
    }

    @Test
    void anAgentsNonZeroExitIsRecordedNotAFailure() {
        TerminalOutcome d = TerminalOutcome.of(facts(false, null, 0, false, "pass", 3));
        assertThat(d.phase()).isEqualTo(PhaseName.Succeeded);
        assertThat(d.reason()).isEqualTo("Verified");
        assertThat(d.message()).contains("exited with status 3");
    }

    /** The same facts through the CLI's path and the sidecar's pod result end the same way. */
    @Test
    void theCliAndThePodResultDecideAlike() {
        Finding critical = new Finding("test-skip-injection", "critical", "conftest.py", "e", "t", -1, "flag");
        Finding info = new Finding("network-blocked", "info", null, "e", "t", -1, "flag");
        record Case(VerifyReport report, boolean timedOut, Integer exit) {}
        List<Case> cases = List.of(
                new Case(report("pass", 1.0, List.of()), false, 0),
                new Case(report("fail", 0.0, List.of()), false, 1),
                new Case(report("pass", 1.0, List.of(critical)), false, 0),
                new Case(report("pass", 1.0, List.of(critical)), true, null), // hacked outranks the deadline (the pod used to say TimedOut)
                new Case(report("pass", 1.0, List.of(info)), false, 0),       // info never counts
                new Case(report("pass", 1.0, List.of()), true, null),
                new Case(report("error", 0.0, List.of()), false, 0),
                new Case(report("error", 0.0, List.of(critical)), false, 0),  // hacked outranks a grading error (the pod used to say Failed)
                new Case(null, false, 0),
                new Case(null, true, null));
        for (Case c : cases) {
            VerifyReport r = c.report();
            TerminalOutcome cli = TerminalOutcome.of(OutcomeFacts.none().withFindings(VerifyReport.counted(r == null ? List.of() : r.hackFindings()), "flag")
                    .withTimedOut(c.timedOut(), 60).withGrade(r == null ? null : r.verdict(), r == null ? null : r.reason()).withAgentExit(c.exit()));
            var pod = PodResult.outcome(r, c.timedOut(), 60, c.exit(), null);
            assertThat(pod.phase()).as(c.toString()).isEqualTo(cli.phase());
            assertThat(pod.reason()).as(c.toString()).isEqualTo(cli.reason());
            assertThat(PodResult.phase(r, c.timedOut())).isEqualTo(cli.phase().name());
        }
        assertThat(PodResult.phase(report("pass", 1.0, List.of(critical)), true)).isEqualTo("Hacked");
        assertThat(PodResult.phase(report("pass", 1.0, List.of(info)), false)).isEqualTo("Succeeded");
    }

    private static VerifyReport report(String verdict, double reward, List<Finding> findings) {
        return new VerifyReport("env", reward, verdict, null, "error".equals(verdict) ? "pytest missing" : null, !findings.isEmpty(), "test-suite",
                "binary", null, new VerifyReport.Tests(0, 0, 0, 0, List.of()), null, findings, null, null);
    }

    @Test
    void terminalPhases() {
        assertThat(PhaseName.Verifying.isTerminal()).isFalse();
        assertThat(PhaseName.TimedOut.isTerminal()).isTrue();
        assertThat(java.util.Arrays.stream(PhaseName.values()).filter(PhaseName::isTerminal).map(Enum::name))
                .containsExactly("Succeeded", "Failed", "Hacked", "TimedOut");
    }
}
