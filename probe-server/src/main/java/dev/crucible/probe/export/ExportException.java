package dev.crucible.probe.export;

/** Why a model cannot be exported, in one line for the user (no stack trace). */
public final class ExportException extends Exception {
    public ExportException(String message) {
        super(message);
    }
}
