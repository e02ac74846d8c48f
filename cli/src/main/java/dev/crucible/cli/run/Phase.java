package dev.crucible.cli.run;

import dev.crucible.contract.OutcomeFacts;
import dev.crucible.contract.TerminalOutcome;

/**
 * The operator's Rollout phases, run locally; the names are the contract's {@link dev.crucible.contract.PhaseName}.
 * How an attempt ends is the contract's {@link TerminalOutcome#of}, the function the sidecar's pod result
 * and the operator use too, so the same facts end the same way locally and in a cluster.
 */
public enum Phase {
    Pending, Initializing, Running, Verifying, Succeeded, Failed, Hacked, TimedOut;

    public boolean isTerminal() { return ordinal() >= Succeeded.ordinal(); }

    /** A terminal phase with its machine-readable reason (the operator's reason names) and a message for people. */
    public record Decision(Phase phase, String reason, String message) {}

    /** Decides how an attempt ended, in the contract's order (see {@link TerminalOutcome#of}). */
    public static Decision terminal(OutcomeFacts f) {
        TerminalOutcome o = TerminalOutcome.of(f);
        return new Decision(Phase.valueOf(o.phase().name()), o.reason(), o.message());
    }
}
