package dev.crucible.probe.train;

import java.util.Locale;

/**
 * Class-imbalance handling (PROPEL table 1): drop majority rows until the classes match, or keep
 * every row and weight the positive class by negatives/positives in the loss (the SWE choice,
 * where positives are too sparse to discard data).
 */
public enum Balance {
    DOWNSAMPLE, WEIGHTED;

    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Balance parse(String raw) {
        String s = raw.trim().toLowerCase(Locale.ROOT).replace('-', '_');
        return switch (s) {
            case "downsample" -> DOWNSAMPLE;
            case "weighted", "weighted_loss" -> WEIGHTED;
            default -> throw new IllegalArgumentException("unknown balance '" + raw + "'; expected downsample or weighted");
        };
    }
}
