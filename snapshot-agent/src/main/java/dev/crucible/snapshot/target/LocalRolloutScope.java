package dev.crucible.snapshot.target;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Local scope (CLI and a local agent). A tree is a local rollout's when its root is
 * <ul>
 *   <li>a descendant of this process (the CLI started the rollout and snapshots it in-process),</li>
 *   <li>the agent named by a live {@code running.json} (pid and kernel start time both match) in a
 *       registered rollout root or a folder directly below one — what {@code crucible snapshot DIR}
 *       and a run's periodic snapshots use — or</li>
 *   <li>inside a top-level {@code crucible} cgroup (only root can put a process there);</li>
 * </ul>
 * and every process of the tree lies below that root (it does, by construction of the tree).
 * Everything else on the host is refused with the reason.
 */
final class LocalRolloutScope implements TargetScope {

    static final String RUNNING = "running.json";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<Path> rolloutRoots;

    LocalRolloutScope(List<Path> rolloutRoots) {
        this.rolloutRoots = List.copyOf(rolloutRoots);
    }

    @Override
    public void check(ResolvedTarget t) {
        BasicRefusals.check(t);
        ProcessRef root = t.root();
        if (descendantOfSelf(root.pid()) || registered(root) || ProcCgroups.of(root.pid()).underCrucible()) {
            return;
        }
        throw new TargetOutOfScopeException("target " + t.description() + " (" + safeComm(root.pid()) + ") is not a local rollout:"
                + " not started by this process, not the agent of a running.json under " + rolloutRoots
                + ", not in a 'crucible' cgroup; refused");
    }

    private static boolean descendantOfSelf(long pid) {
        long self = ProcessHandle.current().pid();
        long p = pid;
        for (int depth = 0; depth < 64 && p > 1; depth++) {
            try {
                p = ProcFs.parentPid(p);
            } catch (RuntimeException e) {
                return false;
            }
            if (p == self) {
                return true;
            }
        }
        return false;
    }

    private boolean registered(ProcessRef root) {
        for (Path dir : rolloutRoots) {
            for (Path f : candidates(dir)) {
                try {
                    JsonNode n = JSON.readTree(Files.readAllBytes(f));
                    if (n.path("agentPid").asLong(-1) == root.pid() && n.path("agentStartTicks").asLong(-1) == root.startTime()) {
                        return true;
                    }
                } catch (IOException | RuntimeException ignored) {
                    // unreadable or half-written: not a registration
                }
            }
        }
        return false;
    }

    private static List<Path> candidates(Path dir) {
        List<Path> out = new ArrayList<>();
        if (Files.isRegularFile(dir.resolve(RUNNING))) {
            out.add(dir.resolve(RUNNING));
        }
        try (Stream<Path> kids = Files.list(dir)) {
            out.addAll(kids.map(k -> k.resolve(RUNNING)).filter(Files::isRegularFile).collect(Collectors.toList()));
        } catch (IOException ignored) {
            // not a directory
        }
        return out;
    }

    private static String safeComm(long pid) {
        try {
            return ProcFs.comm(pid);
        } catch (RuntimeException e) {
            return "?";
        }
    }

}
