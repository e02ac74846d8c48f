package dev.crucible.verifier.api;

import dev.crucible.verifier.exec.GradingPhases;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * Where one API step's time went, for sdk/python/bench/bench_steps.py: with {@code CRUCIBLE_STEP_PHASES=FILE} set,
 * each step appends one line of {@code phase=ms} pairs to FILE (the phases {@link GradingPhases#add} records on the
 * step's thread: the sandbox's preparation, the launch, the command, the kill sweep, the monitor's scan). Unset, a step
 * pays one null check. Figures for a reader, never for a grade.
 */
final class StepPhases {
    private static final String FILE = System.getenv("CRUCIBLE_STEP_PHASES");

    private StepPhases() {}

    static <T> T record(long receivedNanos, Callable<T> work) throws Exception {
        if (FILE == null || FILE.isBlank()) return work.call();
        long start = System.nanoTime();
        Exception[] failed = new Exception[1];
        GradingPhases.Recorded<T> r = GradingPhases.record(() -> {
            try {
                return work.call();
            } catch (Exception e) {
                failed[0] = e;
                return null;
            }
        });
        long end = System.nanoTime();
        StringBuilder line = new StringBuilder().append("queue=").append(ms(start - receivedNanos)).append(" step=").append(ms(end - start));
        for (Map.Entry<String, Long> e : new java.util.TreeMap<>(r.phases().nanos()).entrySet()) line.append(' ').append(e.getKey()).append('=').append(ms(e.getValue()));
        synchronized (StepPhases.class) {
            try {
                Files.writeString(Path.of(FILE), line.append('\n'), StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            } catch (IOException e) {
                // a figure lost; the step itself is unaffected
            }
        }
        if (failed[0] != null) throw failed[0];
        return r.value();
    }

    private static String ms(long nanos) { return String.format(java.util.Locale.ROOT, "%.2f", nanos / 1e6); }
}
