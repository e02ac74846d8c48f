package dev.crucible.probe.train;

import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.imageio.ImageIO;

/**
 * checks.png: AUC bars of the selection figure, the held-out figure(s) and every baseline, over
 * the permutation-null band (grey) and the chance line, with the warnings underneath, so a reader
 * of the plots sees a shortcut or a chance-level probe without opening report.json.
 */
public final class ChecksPlot {
    private ChecksPlot() {
    }

    /** Word-wrapped at {@code width} characters, continuation lines indented. */
    static List<String> wrap(String text, int width) {
        List<String> out = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String word : text.split(" ")) {
            if (line.length() > 0 && line.length() + 1 + word.length() > width) {
                out.add(line.toString());
                line = new StringBuilder("    ");
            }
            line.append(line.length() == 0 || line.toString().isBlank() ? "" : " ").append(word);
        }
        out.add(line.toString());
        return out;
    }

    public static void write(CellResult selected, TrainChecks c, Path file) throws IOException {
        System.setProperty("java.awt.headless", "true");
        Map<String, Double> bars = new LinkedHashMap<>();
        bars.put("selection", selected.auc());
        if (c.nested() != null) {
            bars.put("held-out", c.nested().figures().auc());
        }
        if (c.test() != null) {
            bars.put("test corpus", c.test().auc());
        }
        c.baselines().auc().forEach((k, v) -> bars.put("base: " + k, v));
        int left = 150;
        int plotW = 420;
        int barH = 24;
        int top = 50;
        List<String> lines = new ArrayList<>();
        for (TrainChecks.Warning w : c.warnings()) {
            lines.addAll(wrap("WARNING " + w.kind() + ": " + w.message(), 95));
        }
        int height = top + bars.size() * (barH + 8) + 50 + 16 * lines.size() + 20;
        int width = left + plotW + 80;
        BufferedImage img = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, width, height);
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
        g.drawString("AUC: probe vs chance band and baselines", 10, 22);
        int plotH = bars.size() * (barH + 8);
        // x axis spans AUC 0.3 .. 1.0
        java.util.function.DoubleToIntFunction x = v -> left + (int) Math.round((Math.max(0.3, v) - 0.3) / 0.7 * plotW);
        if (c.band() != null) {
            g.setColor(new Color(220, 220, 220));
            int x0 = x.applyAsInt(c.band().aucLow());
            g.fillRect(x0, top - 6, Math.max(2, x.applyAsInt(c.band().aucHigh()) - x0), plotH + 6);
        }
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        int y = top;
        for (Map.Entry<String, Double> e : bars.entrySet()) {
            boolean probe = !e.getKey().startsWith("base:");
            g.setColor(probe ? new Color(40, 90, 170) : new Color(200, 120, 40));
            double v = e.getValue();
            if (!Double.isNaN(v)) {
                g.fillRect(left, y, x.applyAsInt(v) - left, barH);
            }
            g.setColor(Color.BLACK);
            g.drawString(e.getKey(), 10, y + 16);
            g.drawString(String.format(Locale.ROOT, "%.3f", v), x.applyAsInt(Double.isNaN(v) ? 0.3 : v) + 4, y + 16);
            y += barH + 8;
        }
        g.setColor(Color.RED);
        g.drawLine(x.applyAsInt(0.5), top - 8, x.applyAsInt(0.5), top + plotH);
        g.setColor(Color.BLACK);
        g.drawLine(left, top + plotH, left + plotW, top + plotH);
        for (double t = 0.3; t <= 1.0001; t += 0.1) {
            g.drawString(String.format(Locale.ROOT, "%.1f", t), x.applyAsInt(t) - 8, top + plotH + 16);
        }
        y = top + plotH + 40;
        g.drawString(c.band() == null ? "red: chance" : "red: chance; grey: permutation-null 5-95 % band", 10, y);
        g.setColor(new Color(170, 0, 0));
        for (String line : lines) {
            y += 16;
            g.drawString(line, 10, y);
        }
        g.dispose();
        ImageIO.write(img, "png", file.toFile());
    }
}
