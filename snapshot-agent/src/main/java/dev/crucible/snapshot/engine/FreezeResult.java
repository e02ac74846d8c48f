package dev.crucible.snapshot.engine;

import java.time.Instant;

/** A plain pause (no dump): thaw it with its freezeId before the deadline, or the watchdog will. */
public record FreezeResult(String freezeId, String freezer, String cgroup, Instant frozenAt, Instant deadline) {
}
