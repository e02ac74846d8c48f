package dev.crucible.verifier.tools;

/** A tool call the environment cannot run as given (unknown tool, missing argument, path outside the workspace): HTTP 400. */
public class BadToolCallException extends RuntimeException {
    public BadToolCallException(String message) { super(message); }
}
