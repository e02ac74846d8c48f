package dev.crucible.probe.serve;

/** Request size limits of the HTTP API; anything over them is refused with 413 naming the field. */
public record ServerLimits(long maxBodyBytes, int maxItems, int maxTurns, int maxCharsPerTurn) {
    public static final ServerLimits DEFAULT = new ServerLimits(8L << 20, 512, 256, 200_000);
}
