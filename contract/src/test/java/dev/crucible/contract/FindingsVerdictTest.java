package dev.crucible.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The verdict/flag/floor rule on its own: floor under every action, hacked under terminate, flagged under the others. */
class FindingsVerdictTest {
    @Test
    void aCountedFindingFloorsTheRewardUnderEveryAction() {
        for (String action : List.of("flag", "terminate", "revert")) {
            assertThat(FindingsVerdict.judge("pass", false, 1.0, 1.0, "coderl", 1, List.of(action)).reward()).as(action).isEqualTo(-1.0);
            assertThat(FindingsVerdict.judge("pass", false, 1.0, 1.0, "binary", 1, List.of(action)).reward()).as(action).isEqualTo(0.0);
        }
    }

    @Test
    void terminateMakesItHackedEvenAfterAGradingErrorAndOtherActionsFlagIt() {
        assertThat(FindingsVerdict.judge("error", false, 0.0, 0.0, "binary", 1, List.of("terminate")))
                .isEqualTo(new FindingsVerdict(0.0, "hacked", false));
        assertThat(FindingsVerdict.judge("fail", false, 0.0, 0.0, "binary", 1, List.of("revert")))
                .isEqualTo(new FindingsVerdict(0.0, "fail", true));
        assertThat(FindingsVerdict.judge("pass", false, 1.0, 1.0, "binary", 2, Arrays.asList(null, "terminate")))
                .isEqualTo(new FindingsVerdict(0.0, "hacked", true));
    }

    @Test
    void withoutCountedFindingsNothingChangesAndWithoutAScoreTheRewardStays() {
        assertThat(FindingsVerdict.judge("pass", true, 0.5, 0.5, "binary", 0, List.of())).isEqualTo(new FindingsVerdict(0.5, "pass", true));
        assertThat(FindingsVerdict.judge("error", false, null, -1.0, "coderl", 3, List.of("flag")))
                .isEqualTo(new FindingsVerdict(-1.0, "error", true));
    }
}
