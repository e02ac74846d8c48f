package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.contract.VerifierResultJson;
import dev.crucible.verifier.Json;
import dev.crucible.verifier.monitor.Finding;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** hostred3 B1: a finding quoting a 17 MiB ref name (twice in result.json) made it 35.6 MB, past what the console reads. */
class ResultFindingsTest {

    @Test
    void findingsInTheResultAreBoundedByTheContractsRuleWithACountOfTheRest() {
        String ref = "refs/remotes/o/" + "r".repeat(17 << 20);
        List<Finding> all = new ArrayList<>();
        for (int i = 0; i < 20; i++) all.add(new Finding("git-history", Finding.INFO, ".git/packed-refs", "note " + i, "t", 0, "record"));
        all.add(new Finding("git-history", "high", ref, "remote ref " + ref + " added", "t", 1, "flag"));

        ResultFindings f = ResultFindings.of(all);

        assertThat(f.kept()).hasSize(VerifierResultJson.MAX_FINDINGS);
        assertThat(f.omitted()).isEqualTo(all.size() - VerifierResultJson.MAX_FINDINGS);
        assertThat(f.kept().get(0).severity()).as("the counted finding is kept first").isEqualTo("high");
        assertThat(f.kept().get(0).evidence()).hasSize(VerifierResultJson.MAX_EVIDENCE + 1).startsWith("remote ref refs/remotes/o/rrr").endsWith("…");
        assertThat(f.kept().get(0).path()).hasSize(VerifierResultJson.MAX_EVIDENCE + 1);
        assertThat(Json.write(f.kept(), true).length()).isLessThan(16 << 10);
    }

    @Test
    void aCutNeverSplitsASurrogatePair() {
        String s = "a".repeat(VerifierResultJson.MAX_EVIDENCE - 1) + "\uD83D\uDE00tail";
        assertThat(VerifierResultJson.cutEvidence(s)).isEqualTo("a".repeat(VerifierResultJson.MAX_EVIDENCE - 1) + "…");
    }

    @Test
    void fewFindingsKeepTheirOrderAndShortTextIsUntouched() {
        List<Finding> all = List.of(new Finding("a", Finding.INFO, "p", "e", "t", 0, "record"), new Finding("b", "high", "q", "f", "t", 0, "flag"));
        ResultFindings f = ResultFindings.of(all);
        assertThat(f.kept()).containsExactlyElementsOf(all);
        assertThat(f.omitted()).isZero();
    }
}
