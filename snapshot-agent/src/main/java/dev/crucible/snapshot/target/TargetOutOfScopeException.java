package dev.crucible.snapshot.target;

/** A target the agent may not touch (host process, init, the agent itself); mapped to 403. */
public final class TargetOutOfScopeException extends SecurityException {
    public TargetOutOfScopeException(String message) {
        super(message);
    }
}
