package dev.crucible.probe.serve;

/**
 * What one request, and all requests together, may cost; anything over them is refused naming the field.
 *
 * @param maxBodyBytes        request body size (413 "body")
 * @param maxItems            items per request (413 "items")
 * @param maxTurns            turns per item (413 "items[i].turns")
 * @param maxCharsPerTurn     characters per turn (413 "items[i].text")
 * @param maxTokensPerRequest the compute budget: tokens the forward passes of one request may cover in
 *                            total, counted after tokenizing (each turn already cut at the model's
 *                            maxTokens); 413 "items" over it
 * @param maxConcurrent       requests being parsed or scored at once; one more is answered 503 with
 *                            Retry-After (no queue grows without bound)
 */
public record ServerLimits(long maxBodyBytes, int maxItems, int maxTurns, int maxCharsPerTurn, int maxTokensPerRequest,
                           int maxConcurrent) {

    /**
     * Defaults sized so the largest in-limit request stays about a second of CPU on the tiny
     * reference model (see the README's measurement): 1 MiB, 64 items, 32 turns, 32k characters,
     * 16384 tokens, 16 requests at once (enough for the batcher to fill its forward passes).
     */
    public static final ServerLimits DEFAULT = new ServerLimits(1L << 20, 64, 32, 32_768, 16_384, 16);

    public ServerLimits {
        if (maxBodyBytes <= 0 || maxItems <= 0 || maxTurns <= 0 || maxCharsPerTurn <= 0 || maxTokensPerRequest <= 0
                || maxConcurrent <= 0) {
            throw new IllegalArgumentException("server limits must all be positive: " + maxBodyBytes + ", " + maxItems + ", "
                    + maxTurns + ", " + maxCharsPerTurn + ", " + maxTokensPerRequest + ", " + maxConcurrent);
        }
    }

    /** The limits before the compute budget existed: token budget and concurrency from {@link #DEFAULT}. */
    public ServerLimits(long maxBodyBytes, int maxItems, int maxTurns, int maxCharsPerTurn) {
        this(maxBodyBytes, maxItems, maxTurns, maxCharsPerTurn, DEFAULT_TOKENS, DEFAULT_CONCURRENT);
    }

    private static final int DEFAULT_TOKENS = 16_384;
    private static final int DEFAULT_CONCURRENT = 16;

    public ServerLimits withBodyBytes(long v) {
        return new ServerLimits(v, maxItems, maxTurns, maxCharsPerTurn, maxTokensPerRequest, maxConcurrent);
    }

    public ServerLimits withItems(int v) {
        return new ServerLimits(maxBodyBytes, v, maxTurns, maxCharsPerTurn, maxTokensPerRequest, maxConcurrent);
    }

    public ServerLimits withTurns(int v) {
        return new ServerLimits(maxBodyBytes, maxItems, v, maxCharsPerTurn, maxTokensPerRequest, maxConcurrent);
    }

    public ServerLimits withCharsPerTurn(int v) {
        return new ServerLimits(maxBodyBytes, maxItems, maxTurns, v, maxTokensPerRequest, maxConcurrent);
    }

    public ServerLimits withTokensPerRequest(int v) {
        return new ServerLimits(maxBodyBytes, maxItems, maxTurns, maxCharsPerTurn, v, maxConcurrent);
    }

    public ServerLimits withConcurrent(int v) {
        return new ServerLimits(maxBodyBytes, maxItems, maxTurns, maxCharsPerTurn, maxTokensPerRequest, v);
    }
}
