package dev.crucible.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.crucible.probe.head.ProbeHead;
import dev.crucible.probe.reward.RewardComposition;
import dev.crucible.probe.train.Logistic1D;
import dev.crucible.probe.train.ProbeMetrics;
import dev.crucible.probe.train.RewardFloor;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Platt recalibration and the reward checks on known numbers: calibrated probabilities match the
 * base rate, RVP on calibrated logits does not grow with logit scale, the folded head serves the
 * calibrated logit, and the invalid-task floor is checked and chosen against valid rewards.
 */
class CalibrationTest {

    /** Labels with a signal; logits over-confident and shifted, as a weighted loss leaves them. */
    static double[][] data(int n, long seed) {
        Random rnd = new Random(seed);
        double[] y = new double[n];
        double[] logit = new double[n];
        for (int i = 0; i < n; i++) {
            y[i] = rnd.nextDouble() < 0.3 ? 1 : 0;
            logit[i] = 3 * (y[i] - 0.3) + rnd.nextGaussian() * 2 + 1.5;
        }
        return new double[][] {y, logit};
    }

    @Test
    void plattMakesProbabilitiesMeanTheBaseRateAndIgnoresLogitScale() {
        double[][] d = data(2000, 3);
        int[] y = java.util.Arrays.stream(d[0]).mapToInt(v -> (int) v).toArray();
        int[] folds = java.util.stream.IntStream.range(0, y.length).map(i -> i % 5).toArray();
        double[] cal = Logistic1D.crossFitted(d[1], y, folds, true);
        double[] big = java.util.Arrays.stream(d[1]).map(v -> 10 * v).toArray();
        double[] calBig = Logistic1D.crossFitted(big, y, folds, true);
        double baseRate = java.util.Arrays.stream(y).average().orElseThrow();
        double rawMean = java.util.Arrays.stream(d[1]).map(ProbeHead::sigmoid).average().orElseThrow();
        double calMean = java.util.Arrays.stream(cal).map(ProbeHead::sigmoid).average().orElseThrow();
        assertThat(rawMean - baseRate).as("uncalibrated inflation").isGreaterThan(0.2);
        assertThat(calMean).isCloseTo(baseRate, within(0.02));
        assertThat(ProbeMetrics.ece(y, java.util.Arrays.stream(cal).map(ProbeHead::sigmoid).toArray(), 10))
                .isLessThan(0.04);
        // same ranking at ten times the scale: raw reward variance grows 100x, calibrated stays put
        for (int i = 0; i < cal.length; i++) {
            assertThat(calBig[i]).isCloseTo(cal[i], within(1e-6));
        }
        assertThat(ProbeMetrics.variance(big)).isGreaterThan(99 * ProbeMetrics.variance(d[1]));
    }

    @Test
    void calibrationFoldedIntoTheHeadServesTheCalibratedLogit() {
        ProbeHead head = TestProbes.linear("h", 8, 5);
        Logistic1D platt = new Logistic1D(0.4, -1.2);
        ProbeHead served = platt.foldInto(head);
        Random rnd = new Random(1);
        for (int t = 0; t < 20; t++) {
            float[] x = new float[8];
            for (int i = 0; i < 8; i++) {
                x[i] = (float) rnd.nextGaussian();
            }
            assertThat(served.logit(x)).isCloseTo(0.4 * head.logit(x) - 1.2, within(1e-5));
        }
    }

    @Test
    void aNegativeHeldOutSlopeNeverFlipsTheRanking() {
        double[] x = {1, 2, 3, 4, 5, 6};
        int[] y = {1, 1, 1, 0, 0, 0};
        Logistic1D m = Logistic1D.calibration(x, y);
        assertThat(m.a()).isZero();
        assertThat(ProbeHead.sigmoid(m.b())).isCloseTo(0.5, within(0.01));
    }

    @Test
    void floorAboveSomeValidRewardsWarnsAndAnUnsetFloorIsChosenBelowAll() {
        double[] validLogits = {-2.4, -1.0, 0.3, 1.7};
        RewardFloor given = RewardFloor.check(new RewardComposition.HardGate(-1.5), false, validLogits);
        assertThat(given.shareAtOrBelowFloor()).isEqualTo(0.25);
        assertThat(given.warning()).contains("invalid-task floor -1.500").contains("25.0%");

        RewardFloor chosen = RewardFloor.check(new RewardComposition.HardGate(-1.5), true, validLogits);
        assertThat(chosen.chosen()).isTrue();
        assertThat(chosen.reward().reward(0, false)).isEqualTo(-4.0);
        assertThat(chosen.warning()).isNull();

        RewardFloor soft = RewardFloor.check(new RewardComposition.SoftGate(0.3, 0.05, 0.95), true, validLogits);
        assertThat(soft.reward().reward(0, false)).isLessThan(0.05);
        assertThat(soft.shareAtOrBelowFloor()).isZero();
    }
}
