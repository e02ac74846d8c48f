package dev.crucible.trajectory;

/**
 * What one rollout's trajectory may take. A segment is closed after {@code segmentEvents} events or
 * {@code segmentBytes} bytes, whichever comes first; a string field longer than {@code inlineBytes} goes to a blob;
 * a line still longer than {@code maxEventBytes} is stored whole as a blob and referenced; past {@code capBytes}
 * (segments and blobs together) nothing more is stored but the cap event and the final summary, which say what
 * was dropped.
 */
public record RecorderLimits(int segmentEvents, long segmentBytes, int inlineBytes, int maxEventBytes, long capBytes) {
    /** 10,000 events or 8 MiB per segment, 4 KiB inline, 64 KiB a line, 2 GiB a rollout (a week at 10 steps a second fits). */
    public static RecorderLimits defaults() {
        return new RecorderLimits(10_000, 8L << 20, 4096, 64 << 10, 2L << 30);
    }

    public RecorderLimits {
        if (segmentEvents < 1 || segmentBytes < 1024 || inlineBytes < 64 || maxEventBytes < inlineBytes * 2 || capBytes < 64 << 10) {
            throw new IllegalArgumentException("recorder limits out of range: " + segmentEvents + " events, " + segmentBytes + " B a segment, "
                    + inlineBytes + " B inline, " + maxEventBytes + " B an event, cap " + capBytes + " B");
        }
    }

    public RecorderLimits withCap(long bytes) {
        return new RecorderLimits(segmentEvents, segmentBytes, inlineBytes, maxEventBytes, bytes);
    }

    public RecorderLimits withSegment(int events, long bytes) {
        return new RecorderLimits(events, bytes, inlineBytes, maxEventBytes, capBytes);
    }
}
