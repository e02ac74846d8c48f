package dev.crucible.snapshot.target;

import java.nio.file.Path;
import java.util.List;

/**
 * A target made concrete: the root of the process tree CRIU dumps, every process in it, and
 * the cgroup that holds exactly these processes (null when none could be used: SIGSTOP then).
 */
public record ResolvedTarget(ProcessRef root, List<ProcessRef> processes, Path cgroup, String description) {
}
