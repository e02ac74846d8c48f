package dev.crucible.contract;

/**
 * A rollout's phases, by the names the Rollout status, the sidecar's pod result and {@code result.json}
 * all use: Pending → Initializing → Running → Verifying → one of the four terminal phases.
 */
public enum PhaseName {
    Pending, Initializing, Running, Verifying, Succeeded, Failed, Hacked, TimedOut;

    public boolean isTerminal() { return ordinal() >= Succeeded.ordinal(); }
}
