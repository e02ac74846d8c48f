package dev.crucible.verifier.exec;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Where one grading's time went, for {@code crucible verify bench}: durations by phase and a few
 * wall-clock instants (the launch of the graded command, the reporter's start and end as the graded
 * process saw them). Recording is per thread and only while {@link #record} runs, so grading outside
 * the bench pays one ThreadLocal read per phase and parallel gradings never mix their figures.
 * Instants the graded process reports come from code under test: figures for a reader, never for a grade.
 */
public final class GradingPhases {
    private static final ThreadLocal<GradingPhases> CURRENT = new ThreadLocal<>();
    private final Map<String, Long> nanos = new LinkedHashMap<>();
    private final Map<String, Long> instantsMicros = new LinkedHashMap<>();

    /** What {@link #record} returns: the supplier's value and the phases it went through. */
    public record Recorded<T>(T value, GradingPhases phases) {}

    public static <T> Recorded<T> record(Supplier<T> work) {
        GradingPhases p = new GradingPhases();
        GradingPhases outer = CURRENT.get();
        CURRENT.set(p);
        try {
            return new Recorded<>(work.get(), p);
        } finally {
            if (outer == null) CURRENT.remove();
            else CURRENT.set(outer);
        }
    }

    /** Adds {@code nanos} to {@code phase} (nothing when no one records on this thread). */
    public static void add(String phase, long nanos) {
        GradingPhases p = CURRENT.get();
        if (p != null) p.nanos.merge(phase, nanos, Long::sum);
    }

    /** Adds the time since {@code startNanos} (a {@link System#nanoTime()}) to {@code phase}; returns now. */
    public static long since(String phase, long startNanos) {
        long now = System.nanoTime();
        add(phase, now - startNanos);
        return now;
    }

    /** Notes a wall-clock instant (microseconds since the epoch); the first one of a name wins. */
    public static void instant(String name, long epochMicros) {
        GradingPhases p = CURRENT.get();
        if (p != null) p.instantsMicros.putIfAbsent(name, epochMicros);
    }

    /** The current wall clock in microseconds since the epoch. */
    public static long nowMicros() {
        java.time.Instant i = java.time.Instant.now();
        return i.getEpochSecond() * 1_000_000L + i.getNano() / 1_000;
    }

    /** Milliseconds spent in {@code phase} (0 when it never ran). */
    public double ms(String phase) { return nanos.getOrDefault(phase, 0L) / 1e6; }

    /** Milliseconds between two instants, or NaN when either is missing. */
    public double msBetween(String from, String to) {
        Long a = instantsMicros.get(from);
        Long b = instantsMicros.get(to);
        return a == null || b == null ? Double.NaN : (b - a) / 1e3;
    }

    public Map<String, Long> nanos() { return Map.copyOf(nanos); }
}
