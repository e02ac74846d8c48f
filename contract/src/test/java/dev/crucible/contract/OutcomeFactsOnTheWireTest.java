package dev.crucible.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The facts a writer decided its phase from travel in the result JSON, so a reader decides again from the same facts
 * (issue 40: the operator no longer rebuilds them from reason strings). Every combination of the facts must end the
 * same way after a write and a parse as before it.
 */
class OutcomeFactsOnTheWireTest {

    @Test
    void everyCombinationOfFactsDecidesTheSameAfterTheTrip() {
        List<String> verdicts = java.util.Arrays.asList(null, "pass", "fail", "partial", "error");
        int checked = 0;
        for (int bits = 0; bits < 1 << 6; bits++) {
            for (String verdict : verdicts) {
                for (int counted : new int[] {0, 2}) {
                    OutcomeFacts f = facts(bits, verdict, counted);
                    TerminalOutcome before = TerminalOutcome.of(f);
                    List<VerifierResultJson.Finding> found = new ArrayList<>();
                    for (int i = 0; i < counted; i++) found.add(new VerifierResultJson.Finding("d", "high", null, "p", "e", "t", i, "terminate"));
                    var written = new VerifierResultJson.Result(before.phase(), before.reason(), 3, 0.5, null, verdict, null, counted, found,
                            null, before.message(), null, null, null).withFacts(VerifierResultJson.Facts.of(f));
                    var parsed = VerifierResultJson.parse(VerifierResultJson.write(written));
                    assertThat(parsed.error()).isNull();
                    var r = parsed.result();
                    TerminalOutcome after = TerminalOutcome.of(r.facts().outcomeFacts(r.verdict(), r.countedFindings(), r.message()));
                    String what = "facts " + Integer.toBinaryString(bits) + " verdict " + verdict + " counted " + counted;
                    assertThat(after.phase()).as(what).isEqualTo(before.phase());
                    assertThat(after.reason()).as(what).isEqualTo(before.reason());
                    assertThat(after.message()).as(what).isEqualTo(before.message());
                    checked++;
                }
            }
        }
        assertThat(checked).isEqualTo(64 * 5 * 2);
    }

    @Test
    void onlyTheFactsThatHoldAreWritten() {
        OutcomeFacts f = OutcomeFacts.none().withFindings(0, "flag").withGrade("pass", null).withAgentExit(0);
        String json = VerifierResultJson.write(new VerifierResultJson.Result(PhaseName.Succeeded, OutcomeReasons.VERIFIED, 1, 1.0, null,
                "pass", null, 0, null, null, "ok", null, null, null).withFacts(VerifierResultJson.Facts.of(f)));
        assertThat(json).contains("\"facts\":{\"policy\":\"flag\",\"agentExit\":0}");
    }

    @Test
    void aMalformedFactsFieldIsNamed() {
        var parsed = VerifierResultJson.parse("{\"phase\":\"Succeeded\",\"verdict\":\"pass\",\"facts\":{\"timedOut\":\"soon\"}}");
        assertThat(parsed.ok()).isFalse();
        assertThat(parsed.error()).contains("facts.timedOut");
    }

    /** Six independent facts from the bits (interrupted, refused, setup failed, timed out, limit exceeded, agent exit 3). */
    private static OutcomeFacts facts(int bits, String verdict, int counted) {
        List<Boolean> b = new ArrayList<>();
        for (int i = 0; i < 6; i++) b.add((bits >> i & 1) == 1);
        return OutcomeFacts.none().withInterrupted(b.get(0)).withRefusal(b.get(1) ? "no bubblewrap" : null)
                .withSetupError(b.get(2) ? "setup exited 1" : null).withFindings(counted, "terminate")
                .withTimedOut(b.get(3), 600).withLimitExceeded(b.get(4), b.get(4) ? "memory" : null)
                .withGrade(verdict, verdict == null ? "pytest missing" : null).withAgentExit(b.get(5) ? 3 : 0);
    }
}
