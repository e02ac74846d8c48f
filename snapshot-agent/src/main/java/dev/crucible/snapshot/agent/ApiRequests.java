package dev.crucible.snapshot.agent;

import dev.crucible.snapshot.client.api.TargetSpec;

/** Small request bodies of the HTTP API that have no engine type of their own. */
final class ApiRequests {

    private ApiRequests() {
    }

    record Freeze(TargetSpec target, Long timeoutMs) {
    }

    record Thaw(String freezeId) {
    }

    record Phase(String snapshotId) {
    }

    record Commit(String snapshotId, String action) {
    }

    record Abort(String snapshotId, String reason) {
    }

    record Gc(Integer keepPerGroup, Long ttlSeconds, Long failedTtlSeconds) {
    }
}
