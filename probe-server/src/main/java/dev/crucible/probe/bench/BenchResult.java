package dev.crucible.probe.bench;

import java.util.Locale;

/**
 * One benchmark run: the reference forward pass in Java (ONNX Runtime) and in PyTorch on the same
 * model, token ids, batch and thread count, timed in alternating windows. Tokens/s are each side's
 * median window; {@code ratio} is the median of the per-round ratios of wall-clock tokens/s (each
 * round pairs windows taken back to back), {@code cpuRatio} the same over process CPU time, which
 * the neighbours' load disturbs much less. Torch figures are NaN when PyTorch could not be run.
 * {@code headShare} is the probe head (pooling + heads) relative to the forward pass;
 * {@code loadMin}/{@code loadMax} the machine's 1-minute load average seen before the rounds.
 */
public record BenchResult(double javaTokensPerSecond, double torchTokensPerSecond, double ratio, double cpuRatio,
                          double headShare, double loadMin, double loadMax, int rounds, String device,
                          String torchNote) {

    public String line() {
        return String.format(Locale.ROOT, "java_tokens_s=%.0f torch_tokens_s=%s ratio=%s head_share=%.5f cpu_ratio=%s"
                        + " load=%.1f-%.1f", javaTokensPerSecond, fmt(torchTokensPerSecond, "%.0f"), fmt(ratio, "%.3f"),
                headShare, fmt(cpuRatio, "%.3f"), loadMin, loadMax);
    }

    private static String fmt(double v, String f) {
        return Double.isNaN(v) ? "NA" : String.format(Locale.ROOT, f, v);
    }
}
