package dev.crucible.snapshot.freeze;

import dev.crucible.snapshot.target.ProcFs;
import dev.crucible.snapshot.target.ProcessRef;
import dev.crucible.snapshot.target.ProcessTree;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives a local process tree that has no cgroup of its own one, under a delegated parent
 * (default CGROUP2_MOUNT/crucible), so the cgroup freezer can be used for it. Processes are
 * moved root first; the walk repeats until no new descendant appears, because a child forked
 * before its parent moved would otherwise stay behind.
 *
 * <p>The cgroup only lives as long as the freeze: {@link #release} moves the processes back to
 * the cgroups they came from and removes it, on success, failure and abort alike. Its name
 * carries the owning agent (pid and start time), so {@link #removeStale} at start-up thaws and
 * removes only cgroups whose agent is gone, never those of another live agent on the host.
 */
public final class TreeCgroups {

    private static final Logger LOG = LoggerFactory.getLogger(TreeCgroups.class);
    private static final String PREFIX = "tree-";

    private final Path parent;
    private final Path mount;
    private final String owner;
    /** Per adopted cgroup: where each moved pid was before (path relative to the cgroup2 mount). */
    private final Map<Path, Map<Long, String>> origins = new ConcurrentHashMap<>();

    public TreeCgroups(Path parent) {
        this(parent, dev.crucible.snapshot.target.CgroupMounts.cgroup2().orElse(parent.getParent()));
    }

    public TreeCgroups(Path parent, Path mount) {
        this.parent = parent;
        this.mount = mount;
        ProcessRef self = ProcessRef.of(ProcessHandle.current().pid());
        this.owner = "by-" + self.pid() + "-" + self.startTime();
    }

    public Path parent() {
        return parent;
    }

    /** Moves the tree into PARENT/tree-PID-STARTTIME-by-AGENT and returns that cgroup. */
    public Path adopt(ProcessRef root) throws IOException {
        Files.createDirectories(parent);
        Path cg = parent.resolve(PREFIX + root.pid() + "-" + root.startTime() + "-" + owner);
        Files.createDirectories(cg);
        Map<Long, String> from = origins.computeIfAbsent(cg, k -> new ConcurrentHashMap<>());
        Set<Long> moved = new HashSet<>();
        try {
            for (int round = 0; round < 10; round++) {
                List<ProcessRef> tree = ProcessTree.of(root.pid());
                boolean any = false;
                for (ProcessRef p : tree) {
                    if (moved.add(p.pid())) {
                        any = true;
                        try {
                            String before = ProcFs.cgroupV2Path(p.pid());
                            Files.writeString(cg.resolve("cgroup.procs"), Long.toString(p.pid()));
                            if (before != null) {
                                from.put(p.pid(), before);
                            }
                        } catch (IOException | RuntimeException e) {
                            if (p.alive()) {
                                throw e;
                            }
                        }
                    }
                }
                if (!any) {
                    return cg;
                }
            }
            throw new IOException("process tree of " + root.pid() + " kept forking while being moved into " + cg);
        } catch (IOException | RuntimeException e) {
            release(cg);
            throw e;
        }
    }

    /**
     * Moves every process still in {@code cg} back where it came from (a child forked while it
     * was there goes where its tree's root came from; a vanished origin means the mount's root),
     * then removes the cgroup. Thaws first: a frozen cgroup's tasks would stay frozen elsewhere.
     * Returns true when the cgroup is gone.
     */
    public boolean release(Path cg) {
        Map<Long, String> from = origins.remove(cg);
        return evacuate(cg, from == null ? Map.of() : from);
    }

    private boolean evacuate(Path cg, Map<Long, String> from) {
        if (!Files.isDirectory(cg)) {
            return true;
        }
        try {
            CgroupV2Freezer.thaw(cg);
        } catch (RuntimeException e) {
            LOG.warn("cannot thaw " + cg + " before removing it: " + e.getMessage());
        }
        String fallback = from.values().stream().findFirst().orElse("/");
        for (int round = 0; round < 50; round++) {
            List<Long> left = procs(cg);
            for (long pid : left) {
                moveTo(pid, from.getOrDefault(pid, fallback));
            }
            try {
                Files.delete(cg); // rmdir: only succeeds once empty
                return true;
            } catch (IOException e) {
                LockSupport.parkNanos(40_000_000); // exiting (killed) tasks leave the cgroup asynchronously
            }
        }
        LOG.warn("could not remove " + cg + " (still holds " + procs(cg) + ")");
        return false;
    }

    private void moveTo(long pid, String relative) {
        Path target = mount.resolve(relative.startsWith("/") ? relative.substring(1) : relative);
        for (Path dest : List.of(target, mount)) {
            try {
                Files.writeString(dest.resolve("cgroup.procs"), Long.toString(pid));
                return;
            } catch (IOException e) {
                // origin gone (or refuses): fall back to the root of the hierarchy
            }
        }
    }

    private static List<Long> procs(Path cg) {
        List<Long> out = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(cg.resolve("cgroup.procs"))) {
                if (!line.isBlank()) {
                    out.add(Long.parseLong(line.trim()));
                }
            }
        } catch (IOException | NumberFormatException ignored) {
            // gone
        }
        return out;
    }

    /**
     * Start-up cleanup: every tree cgroup whose owning agent is no longer running (or that has
     * no owner in its name, from an older agent) is thawed, emptied back to the hierarchy's root
     * and removed. Returns the names removed.
     */
    public List<String> removeStale() {
        List<String> removed = new ArrayList<>();
        for (Path d : treeDirs()) {
            String name = d.getFileName().toString();
            if (ownerAlive(name)) {
                continue;
            }
            if (evacuate(d, Map.of())) {
                removed.add(name);
            }
        }
        return removed;
    }

    /** Removes empty tree cgroups (their processes exited); called by garbage collection. */
    public int removeEmpty() {
        int removed = 0;
        for (Path d : treeDirs()) {
            if (procs(d).isEmpty() && !origins.containsKey(d)) {
                try {
                    Files.delete(d);
                    removed++;
                } catch (IOException ignored) {
                    // busy or already gone
                }
            }
        }
        return removed;
    }

    private List<Path> treeDirs() {
        List<Path> out = new ArrayList<>();
        if (!Files.isDirectory(parent)) {
            return out;
        }
        try (var dirs = Files.list(parent)) {
            dirs.filter(d -> d.getFileName().toString().startsWith(PREFIX) && Files.isDirectory(d)).forEach(out::add);
        } catch (IOException ignored) {
            // parent unreadable: nothing to clean
        }
        return out;
    }

    /** "tree-PID-START-by-APID-ASTART": is that agent (pid with that start time) still running? */
    static boolean ownerAlive(String name) {
        int by = name.indexOf("-by-");
        if (by < 0) {
            return false;
        }
        String[] parts = name.substring(by + 4).split("-");
        if (parts.length != 2) {
            return false;
        }
        try {
            return new ProcessRef(Long.parseLong(parts[0]), Long.parseLong(parts[1])).alive();
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
