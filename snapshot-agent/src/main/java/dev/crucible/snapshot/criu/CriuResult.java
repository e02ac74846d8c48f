package dev.crucible.snapshot.criu;

import java.nio.file.Path;

/** A finished, successful CRIU run. */
public record CriuResult(String action, long durationNanos, Path log) {
    public long millis() {
        return durationNanos / 1_000_000;
    }
}
