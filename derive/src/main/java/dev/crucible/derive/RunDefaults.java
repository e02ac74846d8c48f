package dev.crucible.derive;

/** {@code defaults.run} of a workflow or job: either field may be null (not set at that level). */
record RunDefaults(String shell, String workingDirectory) {
    static final RunDefaults NONE = new RunDefaults(null, null);

    /** These defaults with {@code inner}'s fields taking precedence where set. */
    RunDefaults overriddenBy(RunDefaults inner) {
        return new RunDefaults(inner.shell != null ? inner.shell : shell,
                inner.workingDirectory != null ? inner.workingDirectory : workingDirectory);
    }
}
