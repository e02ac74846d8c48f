package dev.crucible.contract;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link Reward#atEnd}: a TimedOut rollout reports the floor whatever its tree scored; every other phase its grade's reward. */
class RewardAtEndTest {

    @Test
    void aTimedOutRolloutIsNotPaidForTheTreeItLeftAtTheDeadline() {
        assertThat(Reward.atEnd(PhaseName.TimedOut, 1.0, "binary")).isEqualTo(0.0);
        assertThat(Reward.atEnd(PhaseName.TimedOut, 0.75, "fraction")).isEqualTo(0.0);
        assertThat(Reward.atEnd(PhaseName.TimedOut, 1.0, "coderl")).isEqualTo(-1.0);
        assertThat(Reward.atEnd(PhaseName.TimedOut, 1.0, null)).isEqualTo(Reward.floor(SpecDefaults.REWARD_MODE));
    }

    @Test
    void everyOtherPhaseKeepsItsGrade() {
        for (PhaseName p : PhaseName.values()) {
            if (p != PhaseName.TimedOut) assertThat(Reward.atEnd(p, 0.75, "fraction")).as(p.name()).isEqualTo(0.75);
        }
    }
}
