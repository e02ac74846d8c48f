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
 * with its standard deviation over the folds, chance (0.5) marked on the scale, the selected cell outlined;
 * and the same faceted by target solver, one row of panels per solver.
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
        draw(List.of(new Row(null, results, selected)), layers, poolings, architectures,
                "Probe sweep: cross-validated balanced accuracy", file);
    }

    /**
     * sweep_solvers.png: one row of architecture panels per target solver (PROPEL's head × solver
     * facets); the trained target's row outlines the selected cell, the others their best.
     */
    public static void writeFacets(List<SolverFacets.Facet> facets, CellResult selected, List<Integer> layers,
                                   List<String> poolings, List<String> architectures, Path file) throws IOException {
        List<Row> rows = facets.stream().map(f -> new Row((f.target() ? "target: " : "solver: ") + f.solver()
                + (f.note() == null ? "" : "  (" + f.note() + ")"), f.results(), f.target() ? selected : f.best())).toList();
        draw(rows, layers, poolings, architectures, "Probe sweep by target solver: cross-validated balanced accuracy",
                file);
    }

    /** A row of panels: its title (null for a single row), its cells, the one outlined (may be null). */
    private record Row(String title, List<CellResult> results, CellResult outlined) {
    }

    private static void draw(List<Row> rows, List<Integer> layers, List<String> poolings, List<String> architectures,
                             String title, Path file) throws IOException {
        System.setProperty("java.awt.headless", "true");
        int panelW = LEFT + CELL_W * poolings.size() + 30;
        int panelH = CELL_H * layers.size();
        int rowH = panelH + (rows.size() > 1 ? 70 : 0);
        int width = Math.max(panelW * architectures.size() + 20, 720); // the legend and the selected cell's line fit
        int height = TOP + rowH * rows.size() + 110;
        BufferedImage img = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, width, height);
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
        g.drawString(title, 10, 18);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        g.drawString("grouped folds; each cell the best over turn aggregation and balance", 10, 33);
        double lo = 0.4;
        double hi = Math.max(0.6, rows.stream().flatMap(r -> r.results().stream())
                .mapToDouble(CellResult::balancedAccuracy).filter(v -> !Double.isNaN(v)).max().orElse(0.6));
        for (int r = 0; r < rows.size(); r++) {
            Row row = rows.get(r);
            int top = TOP + r * rowH + (rows.size() > 1 ? 50 : 0);
            if (row.title() != null) {
                g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 12));
                g.setColor(Color.BLACK);
                g.drawString(row.title(), 10, top - 54);
            }
            for (int a = 0; a < architectures.size(); a++) {
                panel(g, row, architectures.get(a), 10 + a * panelW, top, layers, poolings, lo, hi);
            }
        }
        int ly = TOP + rowH * rows.size() + 30;
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
        CellResult selected = rows.get(0).outlined();
        if (selected != null) {
            g.drawString("selected (outlined): " + selected.cell().label() + String.format(
                    "   bal.acc %.3f  AUC %.3f  ECE %.3f  RVP %.3f", selected.balancedAccuracy(), selected.auc(),
                    selected.ece(), selected.rvp()), 10, ly + 40);
        }
        g.dispose();
        ImageIO.write(img, "png", file.toFile());
    }

    private static void panel(Graphics2D g, Row row, String arch, int x0, int top, List<Integer> layers,
                              List<String> poolings, double lo, double hi) {
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 12));
        g.setColor(Color.BLACK);
        g.drawString(arch, x0 + LEFT, top - 32);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
        for (int p = 0; p < poolings.size(); p++) {
            g.drawString(abbreviate(poolings.get(p)), x0 + LEFT + p * CELL_W + 2, top - 6);
        }
        for (int l = 0; l < layers.size(); l++) {
            int layer = layers.get(l);
            g.setColor(Color.BLACK);
            g.drawString("layer " + layer, x0 + 4, top + l * CELL_H + 19);
            for (int p = 0; p < poolings.size(); p++) {
                String pooling = poolings.get(p);
                CellResult best = row.results().stream()
                        .filter(r -> r.cell().layer() == layer && r.cell().pooling().equals(pooling)
                                && r.cell().architecture().id().equals(arch) && !Double.isNaN(r.balancedAccuracy()))
                        .max(java.util.Comparator.comparingDouble(CellResult::balancedAccuracy)).orElse(null);
                int cx = x0 + LEFT + p * CELL_W;
                int cy = top + l * CELL_H;
                g.setColor(best == null ? Color.LIGHT_GRAY : colour((best.balancedAccuracy() - lo) / (hi - lo)));
                g.fillRect(cx, cy, CELL_W - 2, CELL_H - 2);
                g.setColor(Color.BLACK);
                // the fold standard deviation beside each figure: a difference smaller than it is noise
                g.drawString(best == null ? "–" : String.format(java.util.Locale.ROOT, "%.3f ±%.3f",
                        best.balancedAccuracy(), best.balancedAccuracyStd()), cx + 8, cy + 19);
                SweepCell s = row.outlined() == null ? null : row.outlined().cell();
                if (s != null && s.layer() == layer && s.pooling().equals(pooling) && s.architecture().id().equals(arch)) {
                    g.setStroke(new java.awt.BasicStroke(3f));
                    g.drawRect(cx, cy, CELL_W - 3, CELL_H - 3);
                    g.setStroke(new java.awt.BasicStroke(1f));
                }
            }
        }
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
