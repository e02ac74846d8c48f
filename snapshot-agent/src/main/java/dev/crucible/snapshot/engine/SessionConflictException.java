package dev.crucible.snapshot.engine;

/** The request does not fit the session's state (unknown id, wrong phase, target already busy). */
public final class SessionConflictException extends RuntimeException {
    public SessionConflictException(String message) {
        super(message);
    }
}
