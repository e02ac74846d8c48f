package dev.crucible.probe.train;

import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import javax.imageio.ImageIO;

/**
 * rvp_gain.png, PROPEL's figure 9 from the sweep: one point per cell, its reward variance under
 * policy against its best-of-N gain ({@link RvpGain}), the selected cell in red, Pearson and
 * Spearman in the title. A flat cloud says RVP does not discriminate among these cells (the paper's
 * AZR case); RVP then serves only as a check against near-constant rewards.
 */
public final class RvpGainPlot {
    private static final int W = 460;
    private static final int H = 340;
    private static final int PAD = 60;

    private RvpGainPlot() {
    }

    /** Draws the panel; returns the number of points drawn. */
    public static int write(RvpGain panel, Path file) throws IOException {
        System.setProperty("java.awt.headless", "true");
        BufferedImage img = new BufferedImage(W + 2 * PAD, H + 2 * PAD + 30, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, img.getWidth(), img.getHeight());
        double xMax = Math.max(1e-9, panel.points().stream().mapToDouble(RvpGain.Point::rvp).max().orElse(1));
        double yMin = Math.min(0, panel.points().stream().mapToDouble(RvpGain.Point::gain).min().orElse(0));
        double yMax = Math.max(1e-9, panel.points().stream().mapToDouble(RvpGain.Point::gain).max().orElse(1));
        g.setColor(Color.BLACK);
        g.drawRect(PAD, PAD, W, H);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
        g.drawString(String.format(Locale.ROOT, "RVP vs best-of-%d gain over %d cells: Pearson %s, Spearman %s",
                Math.round(1 / panel.fraction()), panel.points().size(), figure(panel.pearson()), figure(panel.spearman())), 10, 20);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        g.drawString("0", PAD - 4, PAD + H + 14);
        g.drawString(String.format(Locale.ROOT, "%.3g", xMax), PAD + W - 20, PAD + H + 14);
        g.drawString(String.format(Locale.ROOT, "%.2f", yMax), PAD - 34, PAD + 10);
        g.drawString(String.format(Locale.ROOT, "%.2f", yMin), PAD - 34, PAD + H);
        g.drawString("x: reward variance under policy (RVP)", PAD, PAD + H + 30);
        g.drawString(String.format(Locale.ROOT, "y: in-band share of the top %.0f%% by reward minus the base share",
                100 * panel.fraction()), PAD, PAD + H + 46);
        g.drawString("(cross-validated rows, out-of-fold calibrated reward, validity gate included)", PAD, PAD + H + 62);
        int zero = PAD + H - (int) Math.round(H * (0 - yMin) / (yMax - yMin));
        g.setColor(Color.GRAY);
        g.drawLine(PAD, zero, PAD + W, zero);
        g.drawString("no gain", PAD + W - 44, zero - 4);
        int drawn = 0;
        RvpGain.Point chosen = null;
        for (RvpGain.Point p : panel.points()) {
            if (p.selected()) {
                chosen = p;
                continue;
            }
            g.setColor(new Color(40, 80, 160, 150));
            dot(g, p, xMax, yMin, yMax, 5);
            drawn++;
        }
        if (chosen != null) {
            g.setColor(new Color(200, 30, 30));
            dot(g, chosen, xMax, yMin, yMax, 9);
            g.drawString("selected " + chosen.cell(), PAD, PAD - 8);
            drawn++;
        }
        g.dispose();
        ImageIO.write(img, "png", file.toFile());
        return drawn;
    }

    /** A correlation, or "n/a" where it is undefined (fewer than 3 cells, or a constant axis). */
    private static String figure(double r) {
        return Double.isNaN(r) ? "n/a" : String.format(Locale.ROOT, "%.2f", r);
    }

    private static void dot(Graphics2D g, RvpGain.Point p, double xMax, double yMin, double yMax, int size) {
        int x = PAD + (int) Math.round(W * p.rvp() / xMax);
        int y = PAD + H - (int) Math.round(H * (p.gain() - yMin) / (yMax - yMin));
        g.fillOval(x - size / 2, y - size / 2, size, size);
    }
}
