package dev.crucible.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.data.Offset.offset;

import dev.crucible.probe.train.CellResult;
import dev.crucible.probe.train.CorpusReader;
import dev.crucible.probe.train.GroupedFolds;
import dev.crucible.probe.train.LabelBand;
import dev.crucible.probe.train.ProbeMetrics;
import dev.crucible.probe.train.ProbeSelector;
import dev.crucible.probe.train.SweepCell;
import dev.crucible.probe.head.HeadArchitecture;
import dev.crucible.probe.train.Balance;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Labels, folds, metrics, selection and corpus validation. */
class TrainingPartsTest {

    @Test
    void bandIsOneToThreeOfEightByDefaultAndScalesToOtherN() {
        LabelBand b = LabelBand.DEFAULT;
        assertThat(List.of(0, 1, 2, 3, 4, 8).stream().map(k -> b.positive(k, 8)).toList())
                .containsExactly(false, true, true, true, false, false);
        LabelBand swe = LabelBand.parse("1-2/3");
        assertThat(swe.positive(1, 3)).isTrue();
        assertThat(swe.positive(2, 3)).isTrue();
        assertThat(swe.positive(3, 3)).isFalse();
        assertThat(swe.positive(1, 2)).isTrue();    // a null trial leaves 1 of 2
        assertThatThrownBy(() -> LabelBand.parse("0-3/8")).hasMessageContaining("0 < min");
        assertThatThrownBy(() -> LabelBand.parse("abc")).hasMessageContaining("1-3/8");
    }

    @Test
    void groupedFoldsNeverSplitAGroup() {
        List<String> groups = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            groups.add("repo-" + (i * 7 % 13));
        }
        int[] fold = GroupedFolds.assign(groups, 5, 1);
        Map<String, Integer> seen = new HashMap<>();
        int[] sizes = new int[5];
        for (int i = 0; i < groups.size(); i++) {
            Integer prev = seen.putIfAbsent(groups.get(i), fold[i]);
            assertThat(prev == null || prev == fold[i]).as(groups.get(i)).isTrue();
            sizes[fold[i]]++;
        }
        for (int s : sizes) {
            assertThat(s).isBetween(40, 80);
        }
        assertThatThrownBy(() -> GroupedFolds.assign(List.of("a", "a"), 5, 1)).hasMessageContaining("2 groups");
    }

    @Test
    void metricsOnKnownValues() {
        int[] y = {0, 0, 1, 1};
        assertThat(ProbeMetrics.auc(y, new double[] {0.1, 0.4, 0.35, 0.8})).isEqualTo(0.75);
        assertThat(ProbeMetrics.balancedAccuracy(y, new double[] {-1, 1, 1, 1})).isEqualTo(0.75);
        assertThat(ProbeMetrics.f1(y, new double[] {-1, 1, 1, 1})).isCloseTo(0.8, offset(1e-12));
        assertThat(ProbeMetrics.ece(new int[] {1, 0}, new double[] {0.95, 0.05}, 10)).isCloseTo(0.05, offset(1e-12));
        assertThat(ProbeMetrics.spearman(new double[] {1, 2, 3}, new double[] {10, 20, 15})).isCloseTo(0.5, offset(1e-12));
        assertThat(ProbeMetrics.variance(new double[] {1, 3})).isEqualTo(1.0);
    }

    @Test
    void selectionPrefersHigherRewardVarianceAmongNearlyAsAccurateCalibratedCells() {
        CellResult best = cell(0, 0.80, 0.05, 1.0);
        CellResult close = cell(1, 0.79, 0.05, 4.0);      // within tolerance, more RVP: chosen
        CellResult far = cell(2, 0.70, 0.05, 9.0);        // too inaccurate
        CellResult uncal = cell(3, 0.90, 0.40, 9.0);      // best accuracy but badly calibrated
        assertThat(ProbeSelector.DEFAULT.select(List.of(best, close, far, uncal))).isSameAs(close);
        assertThat(new ProbeSelector(0.25, 0.0).select(List.of(best, close, far, uncal))).isSameAs(best);
        assertThat(ProbeSelector.DEFAULT.select(List.of(uncal))).isSameAs(uncal);   // nothing calibrated
    }

    private static CellResult cell(int layer, double balAcc, double ece, double rvp) {
        return new CellResult(new SweepCell(layer, "mean_full", "mean_full", HeadArchitecture.LINEAR, Balance.WEIGHTED),
                balAcc, 0, 0.8, 0.7, ece, 0.1, 0.2, rvp, new double[0]);
    }

    @Test
    void corpusErrorsNameLineAndField(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("c.jsonl");
        Files.writeString(f, "{\"text\": \"ok\", \"k\": 1, \"n\": 8, \"group\": \"g\"}\n{\"text\": \"x\", \"k\": 9, \"n\": 8}\n");
        assertThatThrownBy(() -> CorpusReader.read(f, true)).hasMessageContaining(":2:").hasMessageContaining("'k'");
        Files.writeString(f, "{\"turns\": [\"a\", 3], \"k\": 1, \"n\": 8}\n");
        assertThatThrownBy(() -> CorpusReader.read(f, true)).hasMessageContaining("turns[1]");
        Files.writeString(f, "{\"text\": \"a\"}\n");
        assertThatThrownBy(() -> CorpusReader.read(f, true)).hasMessageContaining("'k' and 'n'");
        assertThat(CorpusReader.read(f, false).get(0).group()).isEqualTo("line-1");
    }
}
