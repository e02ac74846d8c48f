package dev.crucible.snapshot.client.api;

import java.time.Instant;
import java.util.List;

/** The tree is frozen and ready for the final dump. */
public record PrepareResult(String snapshotId, String freezer, String cgroup, List<Long> preDumpMs,
                            boolean memoryTracking, List<Long> gpuPids, Instant frozenAt, Instant deadline) {
}
