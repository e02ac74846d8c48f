package dev.crucible.cli.run;

import dev.crucible.contract.PhaseName;
import dev.crucible.verifier.monitor.Finding;
import java.io.PrintWriter;
import java.time.Duration;

/**
 * Progress lines of one attempt on the terminal, each stamped with the attempt's elapsed time and
 * label, e.g. {@code [  3.2s calc#0] Running: agent started}. Parallel attempts share the writer, so
 * every line is written whole under its lock. Lines carry agent-chosen names and evidence, so each is
 * printed through {@link Text#visible}: one terminal line per call, with no control character in it.
 */
public final class Progress {
    private final PrintWriter out;
    private final String label;
    private volatile long t0 = System.nanoTime();
    private volatile PhaseName current; // the last phase printed: what a signal interrupted

    public Progress(PrintWriter out, String label) {
        this.out = out;
        this.label = label;
    }

    public void phase(PhaseName p, String detail) {
        current = p;
        line(p + (detail == null || detail.isEmpty() ? "" : ": " + detail));
    }

    /** The attempt's phase as last printed (null before the first). */
    public PhaseName current() { return current; }

    public void finding(Finding f) {
        line("FINDING " + f.detector() + " [" + f.severity() + "] " + (f.path() != null ? f.path() : "")
                + (f.evidence() != null ? (f.path() != null ? " — " : "") + Text.shorten(f.evidence(), 160) : "")
                + " (" + f.action() + ")");
    }

    /** {@code activity}: steps taken (interactive) or the agent's process count (embedded). */
    public void heartbeat(String activity, int findings, Duration left, String lastOutput) {
        line("Running: " + activity + ", " + findings + " finding" + (findings == 1 ? "" : "s") + ", deadline in "
                + Math.max(0, left.toSeconds()) + " s"
                + (lastOutput == null || lastOutput.isBlank() ? "" : "; last output: " + Text.shorten(lastOutput.strip(), 100)));
    }

    public void info(String text) { line(text); }

    /** Counts from now (an attempt that waited for a free slot starts its clock when it starts). */
    public void restart() { t0 = System.nanoTime(); }

    public long elapsedMs() { return (System.nanoTime() - t0) / 1_000_000; }

    private void line(String text) {
        synchronized (out) {
            out.printf("[%6.1fs %s] %s%n", elapsedMs() / 1000.0, Text.visible(label), Text.visible(text));
            out.flush();
        }
    }
}
