package dev.crucible.verifier.exec;

/**
 * What a command did. {@code exitCode} is -1 when it was killed at its timeout; {@code signal} is the
 * signal number when the shell reported death by signal (exit code 128+n).
 */
public record ExecResult(int exitCode, String stdout, String stderr, boolean truncated, boolean timedOut,
                         long elapsedMs, long pid) {

    public boolean ok() { return exitCode == 0 && !timedOut; }

    public String combined() { return stderr == null || stderr.isEmpty() ? stdout : stdout + stderr; }
}
