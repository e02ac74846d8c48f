package dev.crucible.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.console.store.LearnableBands;
import dev.crucible.console.store.RolloutGroups;
import dev.crucible.console.store.RolloutQuery;
import dev.crucible.console.store.RunStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each environment's solve rate beside its learnable band (issue 37): the band a run's summary.json names (as
 * {@code crucible run} writes it for a group of attempts), the default where none does, and where the rate lies.
 */
class LearnableBandTest {
    @TempDir
    Path runs;

    @Test
    void theSolveRateIsShownAgainstTheBandTheRunsSummaryNames() throws Exception {
        RunsFixture.attempt(runs, "calc-run/calc-0", "calc", "2026-12-02T01:00:00Z", List.of());
        RunsFixture.attempt(runs, "calc-run/calc-1", "calc", "2026-12-02T01:01:00Z", List.of(RunsFixture.conftestHack(1)));
        Files.writeString(runs.resolve("calc-run/summary.json"), """
                {"attempts": 2, "solved": 1, "rollouts": [{"rollout": "calc", "environment": "calc", "attempts": 2, "solved": 1,
                 "solveRate": 0.5, "learnableBand": {"minSolveRate": 0.6, "maxSolveRate": 0.9}, "inLearnableBand": false}]}
                """);
        RunsFixture.attempt(runs, "web-0", "web", "2026-12-02T01:02:00Z", List.of());
        RolloutGroups g = RolloutGroups.of(new RunStore(runs, 0), RolloutQuery.parse(Map.of()));
        assertThat(g.environments()).filteredOn(e -> e.environment().equals("calc")).singleElement().satisfies(e -> {
            assertThat(e.solveRate()).isEqualTo(0.5);
            assertThat(e.learnableBand()).isEqualTo(new LearnableBands.Band(0.6, 0.9, "calc-run/summary.json"));
            assertThat(e.bandPosition()).isEqualTo("below");
        });
        assertThat(g.environments()).filteredOn(e -> e.environment().equals("web")).singleElement().satisfies(e -> {
            assertThat(e.learnableBand()).isEqualTo(LearnableBands.DEFAULT);
            assertThat(e.bandPosition()).isEqualTo("above"); // solved 1 of 1: no signal left in the group
        });
    }

    @Test
    void aBrokenSummaryIsAProblemListedAndTheDefaultBandHolds() throws Exception {
        RunsFixture.attempt(runs, "r/a-0", "calc", "2026-12-02T01:00:00Z", List.of());
        Files.writeString(runs.resolve("r/summary.json"), "{\"rollouts\": [");
        RunStore store = new RunStore(runs, 0);
        assertThat(store.index().problems()).singleElement().asString().startsWith("r/summary.json: not read");
        assertThat(RolloutGroups.of(store, RolloutQuery.parse(Map.of())).environments()).singleElement()
                .satisfies(e -> assertThat(e.learnableBand().from()).isEqualTo("default"));
    }

    @Test
    void theBoundsAreInclusiveAsTheOperatorCountsThem() {
        LearnableBands.Band b = new LearnableBands.Band(0.25, 0.75, "x");
        assertThat(List.of(b.position(0.2), b.position(0.25), b.position(0.75), b.position(0.8))).containsExactly("below", "inside", "inside", "above");
    }
}
