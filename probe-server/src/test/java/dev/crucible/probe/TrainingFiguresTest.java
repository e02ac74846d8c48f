package dev.crucible.probe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.probe.head.HeadArchitecture;
import dev.crucible.probe.train.Balance;
import dev.crucible.probe.train.CellResult;
import dev.crucible.probe.train.CorpusRow;
import dev.crucible.probe.train.LabelBand;
import dev.crucible.probe.train.SolveRatePlot;
import dev.crucible.probe.train.SweepCell;
import dev.crucible.probe.train.SweepHeatmap;
import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The figures `probe train` writes beside report.json, drawn from known rows and read back. */
class TrainingFiguresTest {

    private static CellResult cell(int layer, double balAcc, double std, double[] logits) {
        return new CellResult(new SweepCell(layer, "mean_full", "mean_full", HeadArchitecture.LINEAR, Balance.WEIGHTED),
                balAcc, std, 0.8, 0.7, 0.1, 0.1, 0.2, 0.3, 0.05, logits, logits);
    }

    @Test
    void solveRateFigureDrawsEveryScoredTaskAndTheSolveCounts(@TempDir Path dir) throws Exception {
        List<CorpusRow> rows = new ArrayList<>();
        int[] ks = {0, 0, 1, 2, 2, 3, 5, 8, 8, 8};
        for (int i = 0; i < ks.length; i++) rows.add(new CorpusRow("t" + i, List.of("task " + i), ks[i], 8, "g" + i % 3, true));
        double[] logits = new double[ks.length];
        for (int i = 0; i < logits.length; i++) logits[i] = i == 4 ? Double.NaN : (ks[i] >= 1 && ks[i] <= 3 ? 2.0 : -2.0);
        Path png = dir.resolve("solve_rate.png");
        SolveRatePlot.Drawn d = SolveRatePlot.write(rows, cell(3, 0.8, 0.05, logits), LabelBand.DEFAULT, png);
        assertThat(d.points()).as("a row outside the cross-validation (NaN) is not drawn").isEqualTo(9);
        assertThat(d.solveCounts()).containsExactly(2, 1, 2, 1, 0, 1, 0, 0, 3);
        BufferedImage img = ImageIO.read(png.toFile());
        assertThat(img.getWidth()).isGreaterThan(img.getHeight());
        // something was drawn in the scatter's band strip (green shading plus points), not a blank image
        int coloured = 0;
        for (int x = 0; x < img.getWidth(); x += 2) {
            for (int y = 0; y < img.getHeight(); y += 2) {
                int rgb = img.getRGB(x, y) & 0xffffff;
                if (rgb != 0xffffff && rgb != 0) coloured++;
            }
        }
        assertThat(coloured).isGreaterThan(1000);
    }

    @Test
    void sweepHeatmapIsWrittenWithFoldSpreadAndChance(@TempDir Path dir) throws Exception {
        Path png = dir.resolve("sweep.png");
        CellResult a = cell(1, 0.55, 0.08, new double[0]);
        CellResult b = cell(2, 0.71, 0.03, new double[0]);
        SweepHeatmap.write(List.of(a, b), b, List.of(1, 2), List.of("mean_full"), List.of(HeadArchitecture.LINEAR.id()), png);
        assertThat(ImageIO.read(png.toFile()).getWidth()).isGreaterThan(200);
    }
}
