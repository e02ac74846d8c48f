package dev.crucible.snapshot.freeze;

import dev.crucible.snapshot.target.ProcessRef;
import dev.crucible.snapshot.target.ProcessTree;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Gives a local process tree that has no cgroup of its own one, under a delegated parent
 * (default CGROUP2_MOUNT/crucible), so the cgroup freezer can be used for it. Processes are
 * moved root first; the walk repeats until no new descendant appears, because a child forked
 * before its parent moved would otherwise stay behind.
 */
public final class TreeCgroups {

    private final Path parent;

    public TreeCgroups(Path parent) {
        this.parent = parent;
    }

    public Path parent() {
        return parent;
    }

    /** Moves the tree into PARENT/tree-PID-STARTTIME and returns that cgroup. */
    public Path adopt(ProcessRef root) throws IOException {
        Files.createDirectories(parent);
        Path cg = parent.resolve("tree-" + root.pid() + "-" + root.startTime());
        Files.createDirectories(cg);
        Set<Long> moved = new HashSet<>();
        for (int round = 0; round < 10; round++) {
            List<ProcessRef> tree = ProcessTree.of(root.pid());
            boolean any = false;
            for (ProcessRef p : tree) {
                if (moved.add(p.pid())) {
                    any = true;
                    try {
                        Files.writeString(cg.resolve("cgroup.procs"), Long.toString(p.pid()));
                    } catch (IOException e) {
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
    }

    /** Removes empty tree cgroups (their processes exited); called by garbage collection. */
    public int removeEmpty() {
        int removed = 0;
        if (!Files.isDirectory(parent)) {
            return 0;
        }
        try (var dirs = Files.list(parent)) {
            for (Path d : (Iterable<Path>) dirs::iterator) {
                if (d.getFileName().toString().startsWith("tree-") && Files.isDirectory(d)) {
                    try {
                        if (Files.readString(d.resolve("cgroup.procs")).isBlank()) {
                            Files.delete(d); // rmdir of an empty cgroup
                            removed++;
                        }
                    } catch (IOException ignored) {
                        // busy or already gone
                    }
                }
            }
        } catch (IOException ignored) {
            // parent unreadable: nothing to clean
        }
        return removed;
    }
}
