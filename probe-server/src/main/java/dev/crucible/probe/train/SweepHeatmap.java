package dev.crucible.probe.train;

import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;

/**
 * The sweep as a heatmap PNG like PROPEL's figures 7–8: one panel per head architecture, layers as
 * rows, poolings as columns, colour = cross-validated balanced accuracy (best over the other axes)
 * with its standard deviation over the folds, chance (0.5) marked on the scale, the selected cell outlined.
 */
public final class SweepHeatmap {
    private static final int CELL_W = 86;
    private static final int CELL_H = 30;
    private static final int LEFT = 60;
    private static final int TOP = 84;

    private SweepHeatmap() {
    }

    public static void write(List<CellResult> results, CellResult selected, List<Integer> layers,
                             List<String> poolings, List<String> architectures, Path file) throws IOException {
        System.setProperty("java.awt.headless", "true");
        int panelW = LEFT + CELL_W * poolings.size() + 30;
        int panelH = CELL_H * layers.size();
        int width = Math.max(panelW * architectures.size() + 20, 720); // the legend and the selected cell's line fit
        int height = TOP + panelH + 110;
        BufferedImage img = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, width, height);
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
        g.drawString("Probe sweep: cross-validated balanced accuracy", 10, 18);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        g.drawString("grouped folds; each cell the best over turn aggregation and balance", 10, 33);
        double lo = 0.4;
        double hi = Math.max(0.6, results.stream().mapToDouble(CellResult::balancedAccuracy)
                .filter(v -> !Double.isNaN(v)).max().orElse(0.6));
        for (int a = 0; a < architectures.size(); a++) {
            String arch = architectures.get(a);
            int x0 = 10 + a * panelW;
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 12));
            g.setColor(Color.BLACK);
            g.drawString(arch, x0 + LEFT, TOP - 32);
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
            for (int p = 0; p < poolings.size(); p++) {
                g.drawString(abbreviate(poolings.get(p)), x0 + LEFT + p * CELL_W + 2, TOP - 6);
            }
            for (int l = 0; l < layers.size(); l++) {
                int layer = layers.get(l);
                g.setColor(Color.BLACK);
                g.drawString("layer " + layer, x0 + 4, TOP + l * CELL_H + 19);
                for (int p = 0; p < poolings.size(); p++) {
                    String pooling = poolings.get(p);
                    CellResult top = results.stream()
                            .filter(r -> r.cell().layer() == layer && r.cell().pooling().equals(pooling)
                                    && r.cell().architecture().id().equals(arch) && !Double.isNaN(r.balancedAccuracy()))
                            .max(java.util.Comparator.comparingDouble(CellResult::balancedAccuracy)).orElse(null);
                    double best = top == null ? Double.NaN : top.balancedAccuracy();
                    int cx = x0 + LEFT + p * CELL_W;
                    int cy = TOP + l * CELL_H;
                    g.setColor(Double.isNaN(best) ? Color.LIGHT_GRAY : colour((best - lo) / (hi - lo)));
                    g.fillRect(cx, cy, CELL_W - 2, CELL_H - 2);
                    g.setColor(Color.BLACK);
                    // the fold standard deviation beside each figure: a difference smaller than it is noise
                    g.drawString(Double.isNaN(best) ? "–" : String.format(java.util.Locale.ROOT, "%.3f ±%.3f", best,
                            top.balancedAccuracyStd()), cx + 8, cy + 19);
                    SweepCell s = selected.cell();
                    if (s.layer() == layer && s.pooling().equals(pooling) && s.architecture().id().equals(arch)) {
                        g.setStroke(new java.awt.BasicStroke(3f));
                        g.drawRect(cx, cy, CELL_W - 3, CELL_H - 3);
                        g.setStroke(new java.awt.BasicStroke(1f));
                    }
                }
            }
        }
        int ly = TOP + panelH + 30;
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        for (int i = 0; i < 200; i++) {
            g.setColor(colour(i / 199.0));
            g.fillRect(LEFT + i, ly, 1, 14);
        }
        g.setColor(Color.BLACK);
        g.drawString(String.format(java.util.Locale.ROOT, "%.2f", lo), LEFT - 30, ly + 12);
        g.drawString(String.format(java.util.Locale.ROOT, "%.2f", hi), LEFT + 206, ly + 12);
        // chance (balanced accuracy 0.5) marked on the scale: cells at or below it learned nothing
        int chanceX = LEFT + (int) Math.round(199 * Math.max(0, Math.min(1, (0.5 - lo) / (hi - lo))));
        g.fillRect(chanceX, ly - 4, 2, 22);
        g.drawString("chance 0.50", chanceX - 28, ly - 6);
        g.drawString("cell: best balanced accuracy ± its standard deviation over the folds", LEFT + 260, ly + 12);
        g.drawString("selected (outlined): " + selected.cell().label() + String.format(
                "   bal.acc %.3f  AUC %.3f  ECE %.3f  RVP %.3f", selected.balancedAccuracy(), selected.auc(),
                selected.ece(), selected.rvp()), 10, ly + 40);
        g.dispose();
        ImageIO.write(img, "png", file.toFile());
    }

    private static String abbreviate(String pooling) {
        return pooling.replace("first_last_concat", "first_last").replace("mean_std_concat", "mean_std")
                .replace("mean_last_half", "mean_lhalf");
    }

    /** Blue (low) → white → red (high), clamped. */
    static Color colour(double t) {
        double v = Math.max(0, Math.min(1, t));
        if (v < 0.5) {
            float s = (float) (v / 0.5);
            return new Color((int) (60 + 195 * s), (int) (100 + 155 * s), 255);
        }
        float s = (float) ((v - 0.5) / 0.5);
        return new Color(255, (int) (255 - 170 * s), (int) (255 - 190 * s));
    }
}
