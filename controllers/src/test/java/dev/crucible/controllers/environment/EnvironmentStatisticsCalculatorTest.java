package dev.crucible.controllers.environment;

import dev.crucible.contract.PhaseName;
import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.api.v1alpha1.environment.LearnableBand;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class EnvironmentStatisticsCalculatorTest {

    private static RolloutOutcome done(String group, double reward) {
        return new RolloutOutcome(reward >= 1.0 ? PhaseName.Succeeded : PhaseName.Failed, reward, group, 4);
    }

    @Test
    void countsAndSolveRate() {
        List<RolloutOutcome> all = new ArrayList<>(List.of(done("g1", 1.0), done("g1", 0.0), done("g1", 0.5), done("g1", 1.0),
                new RolloutOutcome(PhaseName.Running, null, null, null),
                new RolloutOutcome(PhaseName.Hacked, 0.0, null, null)));
        var s = EnvironmentStatisticsCalculator.compute(all, null);
        assertThat(s.rollouts).isEqualTo(6);
        assertThat(s.running).isEqualTo(1);
        assertThat(s.succeeded).isEqualTo(2);
        assertThat(s.failed).isEqualTo(2);
        assertThat(s.hacked).isEqualTo(1);
        assertThat(s.solved).isEqualTo(2);
        assertThat(s.solveRate).isEqualTo(0.4);
        assertThat(s.groups).singleElement().satisfies(g -> {
            assertThat(g.attempts).isEqualTo(4);
            assertThat(g.solved).isEqualTo(2);
            assertThat(g.learnable).isTrue();
        });
        assertThat(s.learnableGroups).isEqualTo(1);
    }

    @Test
    void infrastructureFailuresAreReportedApartAndLeftOutOfTheSolveRate() {
        // g1: one solved, one failed verdict; a rejected restore and a member lost before its agent ran.
        var all = List.of(done("g1", 1.0), done("g1", 0.0),
                new RolloutOutcome(PhaseName.Failed, null, "g1", 4, false),
                new RolloutOutcome(PhaseName.Failed, null, "g1", 4, false));
        var s = EnvironmentStatisticsCalculator.compute(all, null);
        assertThat(s.solveRate).isEqualTo(0.5);
        assertThat(s.infrastructureFailures).isEqualTo(2);
        assertThat(s.failed).as("phase counts stay as they are").isEqualTo(3);
        assertThat(s.groups).singleElement().satisfies(g -> {
            assertThat(g.finished).isEqualTo(2);
            assertThat(g.infrastructureFailures).isEqualTo(2);
            assertThat(g.learnable).as("complete: every member is terminal; 1 of 2 ran attempts solved").isTrue();
        });
    }

    /** Issue 41: a Rollout whose node was lost after its agent started is the cluster's failure, not an unsolved attempt. */
    @Test
    void aRolloutEndedByALostNodeIsAnInfrastructureFailureNotAnUnsolvedAttempt() {
        var lost = new dev.crucible.api.v1alpha1.Rollout();
        lost.setStatus(new dev.crucible.api.v1alpha1.rollout.RolloutStatus());
        lost.getStatus().phase = PhaseName.Failed;
        lost.getStatus().reason = "NodeLost";
        lost.getStatus().timings = new dev.crucible.api.v1alpha1.rollout.RolloutTimings();
        lost.getStatus().timings.runningAt = "2026-01-01T00:00:10Z"; // its agent had run
        var all = List.of(done(null, 1.0), RolloutOutcome.of(lost));
        var s = EnvironmentStatisticsCalculator.compute(all, null);
        assertThat(s.solveRate).isEqualTo(1.0);
        assertThat(s.infrastructureFailures).isEqualTo(1);
        assertThat(s.failed).as("phase counts stay as they are").isEqualTo(1);
    }

    @Test
    void allOrNothingGroupsAreNotLearnable() {
        var all = List.of(done("easy", 1.0), done("easy", 1.0), done("easy", 1.0), done("easy", 1.0),
                done("hard", 0.0), done("hard", 0.0), done("hard", 0.0), done("hard", 0.0));
        var s = EnvironmentStatisticsCalculator.compute(all, null);
        assertThat(s.groups).allSatisfy(g -> assertThat(g.learnable).isFalse());
        assertThat(s.learnableGroups).isZero();
    }

    @Test
    void bandIsConfigurableAndIncompleteGroupsAreUndecided() {
        LearnableBand band = new LearnableBand();
        band.minSolveRate = 0.5;
        band.maxSolveRate = 0.75;
        var quarter = List.of(done("g", 1.0), done("g", 0.0), done("g", 0.0), done("g", 0.0));
        assertThat(EnvironmentStatisticsCalculator.compute(quarter, band).groups.get(0).learnable).isFalse();
        var half = List.of(done("g", 1.0), done("g", 1.0), done("g", 0.0), done("g", 0.0));
        assertThat(EnvironmentStatisticsCalculator.compute(half, band).groups.get(0).learnable).isTrue();
        var incomplete = List.of(done("g", 1.0), new RolloutOutcome(PhaseName.Running, null, "g", 4));
        assertThat(EnvironmentStatisticsCalculator.compute(incomplete, band).groups.get(0).learnable).isNull();
    }

    @Test
    void noFinishedRolloutsMeansNoSolveRate() {
        assertThat(EnvironmentStatisticsCalculator.compute(List.of(), null).solveRate).isNull();
    }
}
