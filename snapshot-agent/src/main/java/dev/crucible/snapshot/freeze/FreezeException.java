package dev.crucible.snapshot.freeze;

public final class FreezeException extends RuntimeException {
    public FreezeException(String message) {
        super(message);
    }

    public FreezeException(String message, Throwable cause) {
        super(message, cause);
    }
}
