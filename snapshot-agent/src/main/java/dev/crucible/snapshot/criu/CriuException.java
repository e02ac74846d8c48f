package dev.crucible.snapshot.criu;

import java.util.List;

/** CRIU failed; the message carries the action, exit status and the error lines of its log. */
public final class CriuException extends RuntimeException {

    private final List<String> errors;

    public CriuException(String message) {
        super(message);
        this.errors = List.of();
    }

    public CriuException(String action, String detail, List<String> errors, String logFile) {
        super("criu " + action + " " + detail + (errors.isEmpty() ? "" : ": " + String.join(" | ", errors))
                + " (log: " + logFile + ")");
        this.errors = List.copyOf(errors);
    }

    public List<String> errors() {
        return errors;
    }
}
