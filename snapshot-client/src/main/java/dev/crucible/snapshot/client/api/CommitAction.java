package dev.crucible.snapshot.client.api;

/** What commit does with the frozen tree once its images are safe: let it run on, or stop it (migration). */
public enum CommitAction {
    THAW, STOP
}
