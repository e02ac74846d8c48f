package dev.crucible.snapshot.store;

/** A path given (directly or through a symlink) resolved outside the directory it must stay in. */
public final class PathEscapeException extends SecurityException {
    public PathEscapeException(String what, String given, java.nio.file.Path base) {
        super(what + " '" + given + "' resolves outside " + base + "; refused");
    }
}
