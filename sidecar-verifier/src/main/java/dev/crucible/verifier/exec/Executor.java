package dev.crucible.verifier.exec;

import java.util.function.LongConsumer;

/**
 * Runs commands where the environment lives: {@link LocalExecutor} in the same container or machine
 * (local runtime, and the sidecar when the workspace is shared); a shim client in a cluster.
 */
public interface Executor {
    /** Runs the request; {@code onStart} receives the pid as soon as the process exists (for the monitor). */
    ExecResult run(ExecRequest request, LongConsumer onStart);

    default ExecResult run(ExecRequest request) { return run(request, pid -> { }); }

    /**
     * Why this executor will refuse every command it is given (no sandbox can be made here), or empty. Asked
     * before grading starts, so that a grade that cannot run ends as an error with this reason instead of
     * being read, from the command that never ran, as tampering with the results.
     */
    default java.util.Optional<String> refusal() { return java.util.Optional.empty(); }

    /**
     * Kills the agent's processes before grading: the given roots with their trees and sessions
     * (locally); everything the shim ever started (in a pod). Returns how many were killed.
     */
    default int killAgents(java.util.Collection<Long> roots) { return roots.isEmpty() ? 0 : ProcessTreeKiller.killAll(roots); }
}
