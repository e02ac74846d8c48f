package dev.crucible.api.v1alpha1.snapshot;

/** Two-phase snapshot protocol: prepare (freeze all), dump, commit (thaw or stop). */
public enum SnapshotPhase {
    Pending, Preparing, Dumping, Committing, Ready, Failed, Expired
}
