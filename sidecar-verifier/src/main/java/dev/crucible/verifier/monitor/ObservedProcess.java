package dev.crucible.verifier.monitor;

import java.util.List;

/**
 * An agent process seen by someone else than this JVM: the runner in an interactive pod's agent-exec
 * container, which has the PID namespace the sidecar lacks. {@code pid}, {@code ppid} and {@code start}
 * (clock ticks since boot) are that namespace's; {@code cmdline} is null when already reported for this
 * process; {@code fds} are the files and sockets ({@code socket:[inode]}) it holds open.
 */
public record ObservedProcess(long pid, long ppid, long start, String cmdline, List<String> fds) {
    public ObservedProcess {
        fds = fds == null ? List.of() : List.copyOf(fds);
    }
}
