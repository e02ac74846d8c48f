package dev.crucible.probe.serve;

/**
 * Dynamic batching: sequences from concurrent requests are grouped until the padded batch
 * (sequences × longest) would exceed {@code tokenBudget}, or {@code maxWaitMillis} passed since
 * the first one arrived, whichever comes first.
 */
public record BatchingOptions(int tokenBudget, long maxWaitMillis) {
    public static final BatchingOptions DEFAULT = new BatchingOptions(8192, 2);

    public BatchingOptions {
        if (tokenBudget < 1 || maxWaitMillis < 0) {
            throw new IllegalArgumentException("tokenBudget must be >= 1 and maxWaitMillis >= 0");
        }
    }
}
