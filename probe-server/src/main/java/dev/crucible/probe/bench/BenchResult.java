package dev.crucible.probe.bench;

/**
 * One benchmark run: the reference forward pass in Java (ONNX Runtime) and in PyTorch on the same
 * model, batch and thread count, plus the share of the probe head (pooling + heads) relative to
 * the forward pass. {@code torchTokensPerSecond} is NaN when PyTorch could not be run.
 */
public record BenchResult(double javaTokensPerSecond, double torchTokensPerSecond, double headShare,
                          String device, String torchNote) {

    public String line() {
        boolean torch = !Double.isNaN(torchTokensPerSecond);
        return String.format(java.util.Locale.ROOT, "java_tokens_s=%.0f torch_tokens_s=%s ratio=%s head_share=%.5f",
                javaTokensPerSecond, torch ? String.format(java.util.Locale.ROOT, "%.0f", torchTokensPerSecond) : "NA",
                torch ? String.format(java.util.Locale.ROOT, "%.3f", javaTokensPerSecond / torchTokensPerSecond) : "NA",
                headShare);
    }
}
