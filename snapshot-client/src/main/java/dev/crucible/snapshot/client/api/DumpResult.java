package dev.crucible.snapshot.client.api;

/** Final images (and workspace archive) written; the tree is still frozen until commit. */
public record DumpResult(String snapshotId, long dumpMs, long workspaceMs, long frozenSoFarMs) {
}
