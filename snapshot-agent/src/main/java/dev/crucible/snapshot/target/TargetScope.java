package dev.crucible.snapshot.target;

import java.nio.file.Path;
import java.util.List;

/**
 * Which processes an engine may freeze and dump. A privileged agent with host PID can reach
 * every process on the node; the scope keeps it to rollouts. Every process of a resolved tree
 * is checked, not only its root, since CRIU dumps (and the freezer stops) all of them.
 */
public interface TargetScope {

    /** Throws {@link TargetOutOfScopeException} naming the process and the rule it failed. */
    void check(ResolvedTarget target);

    /** Cluster: only containers of pods (kubepods cgroups), never the agent's own pod. */
    static TargetScope pods() {
        return new PodCgroupScope(ProcCgroups.self());
    }

    /**
     * Local: trees this process started (the CLI running a rollout in-process), trees inside a
     * {@code crucible} cgroup, and the agent tree named by a live {@code running.json} in one of
     * {@code rolloutRoots} (or a folder directly below one).
     */
    static TargetScope localRollouts(List<Path> rolloutRoots) {
        return new LocalRolloutScope(rolloutRoots);
    }
}
