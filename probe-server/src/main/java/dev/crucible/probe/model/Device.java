package dev.crucible.probe.model;

import java.util.Locale;

/** Where the reference model runs: auto tries CUDA and falls back to CPU with a log line. */
public enum Device {
    AUTO, CPU, CUDA;

    public static Device parse(String raw) {
        try {
            return valueOf(raw.trim().toUpperCase(Locale.ROOT));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("unknown device '" + raw + "'; expected auto, cpu or cuda");
        }
    }
}
