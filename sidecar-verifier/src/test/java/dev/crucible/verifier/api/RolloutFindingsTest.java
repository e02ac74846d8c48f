package dev.crucible.verifier.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.monitor.Finding;
import java.util.List;
import org.junit.jupiter.api.Test;

/** An earlier episode's findings count for the rollout under the one rule of VerifyReport.of. */
class RolloutFindingsTest {
    static VerifyReport pass(String rewardMode, List<Finding> findings) {
        return new VerifyReport("env", 1.0, "pass", null, null, false, "test-suite", rewardMode, null,
                new VerifyReport.Tests(4, 0, 0, 4, List.of()), null, findings, null, null);
    }

    static Finding finding(String severity, String action, String time) {
        return new Finding("protected-path-modified", severity, "conftest.py", "created", time, 0, action);
    }

    @Test
    void anEarlierTerminateFindingFloorsTheRewardAndKeepsTheTestsScore() {
        Finding earlier = finding("critical", "terminate", "t1");
        VerifyReport r = RolloutFindings.withAll(pass("coderl", List.of()), List.of(earlier));
        assertThat(r.hackFindings()).containsExactly(earlier);
        assertThat(r.verdict()).isEqualTo("hacked");
        assertThat(r.reward()).isEqualTo(-1.0);
        assertThat(r.testReward()).isEqualTo(1.0);
        assertThat(r.flagged()).isFalse();
    }

    @Test
    void anEarlierFlagOrRevertFindingFloorsTheRewardToo() {
        for (String action : List.of("flag", "revert")) {
            Finding earlier = finding("high", action, "t1");
            VerifyReport r = RolloutFindings.withAll(pass("binary", List.of()), List.of(earlier));
            assertThat(r.reward()).as(action).isEqualTo(0.0);
            assertThat(r.testReward()).as(action).isEqualTo(1.0);
            assertThat(r.verdict()).as(action).isEqualTo("pass");
            assertThat(r.flagged()).as(action).isTrue();
        }
        VerifyReport coderl = RolloutFindings.withAll(pass("coderl", List.of()), List.of(finding("low", "flag", "t1")));
        assertThat(coderl.reward()).isEqualTo(-1.0);
    }

    @Test
    void infoFindingsAreCarriedAndNeverCount() {
        Finding info = finding("info", "terminate", "t2");
        Finding infoFlag = finding("info", "flag", "t3");
        VerifyReport r = RolloutFindings.withAll(pass("binary", List.of()), List.of(info, infoFlag));
        assertThat(r.hackFindings()).containsExactly(info, infoFlag);
        assertThat(r.verdict()).isEqualTo("pass");
        assertThat(r.reward()).isEqualTo(1.0);
        assertThat(r.testReward()).isEqualTo(1.0);
        assertThat(r.flagged()).isFalse();
    }

    @Test
    void theLastEpisodesOwnFindingsAreNotCountedTwiceAndKeepTheirOrder() {
        Finding earlier = finding("info", "flag", "t1");
        Finding current = finding("high", "flag", "t3");
        VerifyReport last = new VerifyReport("env", 0.0, 1.0, "pass", null, null, true, "test-suite", "binary", null,
                new VerifyReport.Tests(4, 0, 0, 4, List.of()), null, List.of(current), null, null);
        VerifyReport r = RolloutFindings.withAll(last, List.of(earlier, current));
        assertThat(r.hackFindings()).containsExactly(earlier, current);
        assertThat(r.reward()).isEqualTo(0.0);
        assertThat(r.testReward()).isEqualTo(1.0);
        assertThat(r.flagged()).isTrue();
    }

    @Test
    void anErrorReportStaysAtTheFloorAndAnEarlierTerminateFindingMakesItHackedAsInOneEpisode() {
        VerifyReport error = new VerifyReport("env", 0.0, null, "error", null, "grading failed", false, null, "binary", null,
                new VerifyReport.Tests(0, 0, 0, 0, List.of()), null, List.of(), null, null);
        VerifyReport r = RolloutFindings.withAll(error, List.of(finding("critical", "terminate", "t1")));
        assertThat(r.verdict()).isEqualTo("hacked");
        assertThat(r.flagged()).isFalse();
        assertThat(r.reward()).isEqualTo(0.0);
        assertThat(r.testReward()).isNull();
    }

    @Test
    void nothingMissingReturnsTheSameReport() {
        VerifyReport r = pass("binary", List.of());
        assertThat(RolloutFindings.withAll(r, List.of())).isSameAs(r);
        assertThat(RolloutFindings.withAll(null, List.of(finding("high", "flag", "t")))).isNull();
    }
}
