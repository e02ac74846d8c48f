package dev.crucible.snapshot.target;

public final class NoSuchProcessException extends RuntimeException {
    public NoSuchProcessException(long pid) {
        super("no process with pid " + pid);
    }
}
