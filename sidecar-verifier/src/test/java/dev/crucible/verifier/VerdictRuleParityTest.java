package dev.crucible.verifier;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.verifier.api.RolloutFindings;
import dev.crucible.verifier.grade.Outcome;
import dev.crucible.verifier.monitor.Finding;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The verdict/flag/floor rule reaches a result two ways: {@code VerifyReport.of} judges one episode's findings, and
 * {@code RolloutFindings.withAll} adds an earlier episode's findings to a report already made. The same findings must
 * give the same verdict, flag, reward and tests' score either way, for every grading verdict, reward mode, policy
 * action and mix of severities.
 */
class VerdictRuleParityTest {
    @Test
    void findingsJudgedInTheEpisodeOrAddedLaterGiveTheSameResult() {
        int cases = 0;
        for (String verdict : List.of("pass", "fail", "error")) {
            for (double score : List.of(0.0, 0.5, 1.0)) {
                for (String mode : List.of("binary", "partial", "coderl")) {
                    for (String action : List.of("flag", "terminate", "revert")) {
                        for (List<String> severities : List.of(List.of("info"), List.of("low"), List.of("info", "critical"), List.of("medium", "high"))) {
                            Outcome o = new Outcome("test-suite", score, verdict, "passed", "r", null, List.of(), null, 0);
                            List<Finding> found = new ArrayList<>();
                            for (String s : severities) {
                                found.add(new Finding("protected-path-modified", s, "conftest.py", "created", "t" + found.size(), 0,
                                        "info".equals(s) ? Finding.RECORD : action));
                            }
                            VerifyReport inEpisode = VerifyReport.of("env", o, mode, false, found, action, null, null);
                            VerifyReport added = RolloutFindings.withAll(VerifyReport.of("env", o, mode, false, List.of(), action, null, null), found);
                            String what = verdict + " " + score + " " + mode + " " + action + " " + severities;
                            assertThat(added.verdict()).as("verdict, " + what).isEqualTo(inEpisode.verdict());
                            assertThat(added.flagged()).as("flagged, " + what).isEqualTo(inEpisode.flagged());
                            assertThat(added.reward()).as("reward, " + what).isEqualTo(inEpisode.reward());
                            assertThat(added.testReward()).as("testReward, " + what).isEqualTo(inEpisode.testReward());
                            assertThat(added.hackFindings()).as("findings, " + what).isEqualTo(inEpisode.hackFindings());
                            cases++;
                        }
                    }
                }
            }
        }
        assertThat(cases).isEqualTo(324);
    }
}
