package dev.crucible.snapshot.criu;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Serialises CRIU runs whose tasks share a working directory. When a task's /proc belongs to
 * another PID namespace (a tree started with {@code unshare --pid} but no --mount-proc), CRIU's
 * parasite mounts its own proc at "proc.crtools" in the task's cwd; two dumps of tasks with the
 * same cwd then collide on that directory and one fails ("Can't get proc fd"). Seen here with
 * three members dumped in parallel. Trees in different directories still dump in parallel.
 * Locks are JVM-wide (several engines in one process share them); taken in sorted order.
 */
public final class WorkingDirLocks {

    private static final Map<String, ReentrantLock> LOCKS = new ConcurrentHashMap<>();

    private WorkingDirLocks() {
    }

    /** Locks the cwds of the given pids; close the result to unlock. */
    public static AutoCloseable lock(Collection<Long> pids) {
        TreeSet<String> dirs = new TreeSet<>();
        for (long pid : pids) {
            try {
                dirs.add(Files.readSymbolicLink(Path.of("/proc", Long.toString(pid), "cwd")).toString());
            } catch (IOException | UnsupportedOperationException e) {
                // exited: nothing of it will be dumped
            }
        }
        List<ReentrantLock> held = new ArrayList<>();
        for (String d : dirs) {
            ReentrantLock l = LOCKS.computeIfAbsent(d, k -> new ReentrantLock());
            l.lock();
            held.add(l);
        }
        return () -> {
            for (int i = held.size() - 1; i >= 0; i--) {
                held.get(i).unlock();
            }
        };
    }
}
