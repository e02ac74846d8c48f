package dev.crucible.snapshot.client.api;

/**
 * What to snapshot, as a caller names it: exactly one of a pid (local runs, or host PID in a
 * DaemonSet), a cgroup path relative to the cgroup2 mount, or a pod UID plus container id
 * (the agent resolves it to the container's cgroup: {@code ContainerCgroupPaths}).
 */
public record TargetSpec(Long pid, String cgroupPath, String podUid, String containerId) {

    public static TargetSpec ofPid(long pid) {
        return new TargetSpec(pid, null, null, null);
    }

    public void validate() {
        int given = (pid != null ? 1 : 0) + (cgroupPath != null ? 1 : 0) + (podUid != null || containerId != null ? 1 : 0);
        if (given != 1) {
            throw new IllegalArgumentException(
                    "target: give exactly one of target.pid, target.cgroupPath, or target.podUid with target.containerId");
        }
        if (pid != null && pid <= 1) {
            throw new IllegalArgumentException("target.pid must be > 1, got " + pid);
        }
    }
}
