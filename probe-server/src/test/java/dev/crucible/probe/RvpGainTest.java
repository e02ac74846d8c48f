package dev.crucible.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.crucible.probe.head.HeadArchitecture;
import dev.crucible.probe.reward.RewardComposition;
import dev.crucible.probe.train.Balance;
import dev.crucible.probe.train.CellResult;
import dev.crucible.probe.train.RvpGain;
import dev.crucible.probe.train.RvpGainPlot;
import dev.crucible.probe.train.SweepCell;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The RVP panel's best-of-N gain on rows whose answer is known. */
class RvpGainTest {
    static final RewardComposition REWARD = RewardComposition.of("hard_gate", -5.0, null, null);
    // 8 rows, 2 in band (rows 0 and 1), row 7 invalid
    static final int[] LABELS = {1, 1, 0, 0, 0, 0, 0, 1};
    static final boolean[] VALID = {true, true, true, true, true, true, true, false};

    private static CellResult cell(int layer, double rvp, double[] logits) {
        return new CellResult(new SweepCell(layer, "mean_full", "mean_full", HeadArchitecture.LINEAR, Balance.WEIGHTED),
                0.7, 0.02, 0.8, 0.7, 0.1, 0.1, 0.2, 0.3, rvp, logits, logits);
    }

    @Test
    void perfectRankingGainsTheMostAConstantNothingAWrongOneLoses(@TempDir Path dir) throws Exception {
        CellResult perfect = cell(0, 0.2, new double[] {3, 2, -1, -1, -2, -2, -3, 4});
        CellResult constant = cell(1, 0.0, new double[] {0, 0, 0, 0, 0, 0, 0, 0});
        CellResult inverted = cell(2, 0.1, new double[] {-3, -2, 1, 1, 2, 2, 3, 4});
        RvpGain g = RvpGain.of(List.of(perfect, constant, inverted), perfect, LABELS, VALID, REWARD, 0.25);
        // utility = in band and valid: rows 0, 1 (row 7 is in band but invalid: gated to the floor)
        double base = 2 / 8.0;
        assertThat(g.points().get(0).gain()).as("top 2 are both useful").isCloseTo(1 - base, within(1e-12));
        // constant on the valid rows: a random pick among them, so only the validity gate gains (2/7 vs 2/8)
        assertThat(g.points().get(1).gain()).isCloseTo(2 / 7.0 - base, within(1e-12));
        CellResult flat = cell(3, 0.0, new double[] {0, 0, 0, 0, 0, 0, 0, 0});
        boolean[] allValid = {true, true, true, true, true, true, true, true};
        assertThat(RvpGain.of(List.of(flat), flat, LABELS, allValid, REWARD, 0.25).points().get(0).gain())
                .as("all tied: nothing to select").isCloseTo(0, within(1e-12));
        assertThat(g.points().get(2).gain()).isCloseTo(-base, within(1e-12));
        assertThat(g.points().get(0).selected()).isTrue();
        assertThat(g.pearson()).as("RVP 0.2, 0, 0.1 against gain 0.75, 0.036, -0.25").isGreaterThan(0.6);
        assertThat(RvpGainPlot.write(g, dir.resolve("rvp_gain.png"))).isEqualTo(3);
    }

    @Test
    void rowsOutsideTheCrossValidationAreLeftOut() {
        double nan = Double.NaN;
        CellResult partial = cell(0, 0.1, new double[] {nan, 2, -1, -1, nan, -2, -3, 4});
        RvpGain g = RvpGain.of(List.of(partial), partial, LABELS, VALID, REWARD, 0.2);
        // 6 scored rows, one useful (row 1), ranked first: top 1.2 rows = row 1 and a fifth of row 2
        double top = (1 + 0.2 * 0) / 1.2;
        assertThat(g.points().get(0).gain()).isCloseTo(top - 1 / 6.0, within(1e-12));
        assertThat(g.pearson()).as("fewer than 3 cells").isNaN();
    }
}
