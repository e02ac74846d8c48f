package dev.crucible.api.v1alpha1.rollout;

import java.util.Set;

/** Lifecycle of a rollout: Pending → Initializing → Running → Verifying → a terminal phase. */
public enum RolloutPhase {
    Pending, Initializing, Running, Verifying, Succeeded, Failed, Hacked, TimedOut;

    private static final Set<RolloutPhase> TERMINAL = Set.of(Succeeded, Failed, Hacked, TimedOut);

    public boolean isTerminal() {
        return TERMINAL.contains(this);
    }
}
