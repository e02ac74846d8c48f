package dev.crucible.verifier.monitor;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Set;

/**
 * The processes below some roots, read through {@code /proc/PID/task/TID/children}: a few small reads
 * per process of the tree, not a walk of all of /proc, so it is cheap enough to repeat every few
 * milliseconds. A command that lives for milliseconds (a {@code git} call in a loop, {@code awk} over
 * mountinfo) is gone before the full sample comes round; this walk still sees most of them.
 * A double-forked daemon leaves the tree (its parent is gone), as it does for the full sample.
 */
final class ProcessChildren {
    /** Bound on one walk: an agent that forks without end gets sampled in part, never walked forever. */
    static final int MAX = 4096;

    private ProcessChildren() {}

    static Set<Long> below(Set<Long> roots) {
        Set<Long> seen = new HashSet<>();
        Deque<Long> todo = new ArrayDeque<>(roots);
        while (!todo.isEmpty() && seen.size() < MAX) {
            long pid = todo.pop();
            if (!seen.add(pid)) continue;
            try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
                for (Path t : tasks) {
                    for (String c : Files.readString(t.resolve("children")).trim().split("\\s+")) {
                        if (!c.isEmpty()) todo.push(Long.parseLong(c));
                    }
                }
            } catch (IOException | RuntimeException e) {
                seen.remove(pid); // gone between the parent's listing and now
            }
        }
        return seen;
    }
}
