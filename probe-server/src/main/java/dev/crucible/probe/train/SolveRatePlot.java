package dev.crucible.probe.train;

import dev.crucible.probe.head.ProbeHead;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;

/**
 * solve_rate.png, the two figures a data team reads first (PROPEL's score-versus-solve-rate and
 * solve-count plots): left, each task's out-of-fold probability of being in the learnable band (after
 * Platt recalibration) against its solve rate, the band shaded; right, how many tasks were solved k of n
 * times, the band's counts shaded. A probe worth serving puts the high scores inside the shaded strip.
 */
public final class SolveRatePlot {
    private static final int W = 360;
    private static final int H = 300;
    private static final int PAD = 55;

    /** What was drawn: scatter points, and the histogram's count per k (index k, for the largest n). */
    public record Drawn(int points, int[] solveCounts) {
    }

    private SolveRatePlot() {
    }

    public static Drawn write(List<CorpusRow> rows, CellResult selected, LabelBand band, Path file) throws IOException {
        System.setProperty("java.awt.headless", "true");
        BufferedImage img = new BufferedImage(2 * (W + 2 * PAD), H + 2 * PAD, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, img.getWidth(), img.getHeight());
        int points = scatter(g, rows, selected.calibratedLogits(), band, PAD, PAD);
        int[] counts = histogram(g, rows, band, W + 3 * PAD, PAD);
        g.dispose();
        ImageIO.write(img, "png", file.toFile());
        return new Drawn(points, counts);
    }

    private static int scatter(Graphics2D g, List<CorpusRow> rows, double[] logits, LabelBand band, int x0, int y0) {
        g.setColor(new Color(220, 240, 220));
        g.fillRect(x0 + (int) (W * band.min()), y0, (int) (W * (band.max() - band.min())), H);
        frame(g, x0, y0, "P(in band), out of fold, calibrated", "solve rate (k / n)", "1");
        int drawn = 0;
        g.setColor(new Color(40, 80, 160, 170));
        for (int i = 0; i < rows.size() && i < logits.length; i++) {
            if (Double.isNaN(logits[i])) continue;
            double p = ProbeHead.sigmoid(logits[i]);
            int x = x0 + (int) Math.round(W * rows.get(i).solveRate());
            int y = y0 + H - (int) Math.round(H * p);
            g.fillOval(x - 3, y - 3, 6, 6);
            drawn++;
        }
        g.setColor(Color.BLACK);
        g.drawString(String.format(Locale.ROOT, "%d tasks; band %s shaded", drawn, band), x0, y0 - 8);
        return drawn;
    }

    private static int[] histogram(Graphics2D g, List<CorpusRow> rows, LabelBand band, int x0, int y0) {
        int n = rows.stream().mapToInt(CorpusRow::n).max().orElse(1);
        int[] counts = new int[n + 1];
        for (CorpusRow r : rows) {
            counts[(int) Math.round((double) r.k() * n / r.n())]++;
        }
        int max = 1;
        for (int c : counts) max = Math.max(max, c);
        frame(g, x0, y0, "tasks", "times solved (k of " + n + ")", Integer.toString(max));
        int bw = Math.max(2, W / (n + 1));
        for (int k = 0; k <= n; k++) {
            int h = (int) Math.round((double) H * counts[k] / max);
            g.setColor(band.positive(k, n) ? new Color(90, 170, 90) : new Color(170, 170, 200));
            g.fillRect(x0 + k * bw + 1, y0 + H - h, bw - 2, h);
            g.setColor(Color.BLACK);
            if (n <= 20 || k % (n / 10) == 0) g.drawString(Integer.toString(k), x0 + k * bw + bw / 2 - 3, y0 + H + 14);
        }
        g.drawString("solve-count distribution (" + rows.size() + " tasks; in-band counts green)", x0, y0 - 8);
        return counts;
    }

    private static void frame(Graphics2D g, int x0, int y0, String yLabel, String xLabel, String yMax) {
        g.setColor(Color.BLACK);
        g.drawRect(x0, y0, W, H);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        g.drawString(xLabel, x0 + W / 2 - 50, y0 + H + 34);
        g.drawString("y: " + yLabel, x0, y0 + H + 50);
        g.drawString("0", x0 - 12, y0 + H);
        g.drawString(yMax, x0 - 8 - 6 * yMax.length(), y0 + 10);
    }
}
