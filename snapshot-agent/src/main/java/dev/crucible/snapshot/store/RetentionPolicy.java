package dev.crucible.snapshot.store;

import java.time.Duration;

/**
 * Garbage-collection rules: keep the newest {@code keepPerGroup} COMPLETE snapshots of each group,
 * drop any snapshot older than {@code ttl}, and drop FAILED ones older than {@code failedTtl}
 * (kept a while so an operator can read why they failed).
 */
public record RetentionPolicy(int keepPerGroup, Duration ttl, Duration failedTtl) {

    public RetentionPolicy {
        if (keepPerGroup < 1) {
            throw new IllegalArgumentException("keepPerGroup must be >= 1, got " + keepPerGroup);
        }
        if (ttl.isNegative() || ttl.isZero() || failedTtl.isNegative()) {
            throw new IllegalArgumentException("ttl must be > 0 and failedTtl >= 0");
        }
    }

    public static RetentionPolicy defaults() {
        return new RetentionPolicy(5, Duration.ofDays(7), Duration.ofHours(24));
    }
}
