package dev.crucible.verifier;

/** Another step (or grading) is running: one at a time (HTTP 409). */
public class StepBusyException extends RuntimeException {
    public StepBusyException(String message) { super(message); }
}
