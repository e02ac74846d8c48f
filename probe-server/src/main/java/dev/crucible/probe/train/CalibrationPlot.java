package dev.crucible.probe.train;

import dev.crucible.probe.head.ProbeHead;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import javax.imageio.ImageIO;

/**
 * Reliability diagram of the selected probe's out-of-fold probabilities after Platt recalibration (fitted on the other folds): per bin, the observed
 * positive rate against the mean predicted probability, with bin counts; the diagonal is perfect.
 */
public final class CalibrationPlot {
    private CalibrationPlot() {
    }

    public static void write(CellResult selected, int[] labels, int bins, Path file) throws IOException {
        System.setProperty("java.awt.headless", "true");
        int size = 420;
        int pad = 60;
        BufferedImage img = new BufferedImage(size + 2 * pad, size + 2 * pad, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, img.getWidth(), img.getHeight());
        double[] conf = new double[bins];
        double[] pos = new double[bins];
        int[] count = new int[bins];
        double[] logits = selected.calibratedLogits();
        for (int i = 0; i < logits.length; i++) {
            if (Double.isNaN(logits[i])) {
                continue;
            }
            double p = ProbeHead.sigmoid(logits[i]);
            int b = Math.min(bins - 1, (int) (p * bins));
            conf[b] += p;
            pos[b] += labels[i];
            count[b]++;
        }
        g.setColor(Color.BLACK);
        g.drawRect(pad, pad, size, size);
        g.setColor(Color.GRAY);
        g.setStroke(new BasicStroke(1f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {5f}, 0f));
        g.drawLine(pad, pad + size, pad + size, pad);
        g.setStroke(new BasicStroke(1f));
        int max = 1;
        for (int c : count) {
            max = Math.max(max, c);
        }
        int bw = size / bins;
        for (int b = 0; b < bins; b++) {
            int h = (int) (size * 0.25 * count[b] / max);
            g.setColor(new Color(200, 200, 230));
            g.fillRect(pad + b * bw + 2, pad + size - h, bw - 4, h);
        }
        g.setColor(new Color(200, 40, 40));
        int px = -1;
        int py = -1;
        for (int b = 0; b < bins; b++) {
            if (count[b] == 0) {
                continue;
            }
            int x = pad + (int) (size * conf[b] / count[b]);
            int y = pad + size - (int) (size * pos[b] / count[b]);
            g.fillOval(x - 4, y - 4, 8, 8);
            if (px >= 0) {
                g.drawLine(px, py, x, y);
            }
            px = x;
            py = y;
        }
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
        g.drawString("Calibration (out-of-fold, Platt): " + selected.cell().label(), 10, 22);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        g.drawString(String.format("ECE %.3f  (bars: rows per bin)", selected.ece()), 10, 40);
        g.drawString("predicted probability", pad + size / 2 - 50, pad + size + 35);
        for (int t = 0; t <= 4; t++) {
            String s = String.format("%.2f", t / 4.0);
            g.drawString(s, pad + t * size / 4 - 10, pad + size + 15);
            g.drawString(s, pad - 35, pad + size - t * size / 4 + 4);
        }
        g.rotate(-Math.PI / 2);
        g.drawString("observed positive rate", -(pad + size / 2 + 55), pad - 40);
        g.dispose();
        ImageIO.write(img, "png", file.toFile());
    }
}
