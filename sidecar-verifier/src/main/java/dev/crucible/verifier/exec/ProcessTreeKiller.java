package dev.crucible.verifier.exec;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Kills everything an agent started. Commands run under {@code setsid}, so a whole tree shares one
 * session id even after double-forking to init; killing by session catches those daemons, which
 * {@link ProcessHandle#descendants()} alone would miss once they are reparented.
 */
public final class ProcessTreeKiller {
    private ProcessTreeKiller() {}

    /** SIGKILLs the roots, their descendants and every process in their sessions; returns how many died. */
    public static int killAll(Collection<Long> roots) { return killStarted(startsOf(roots)); }

    /** Each pid with its start time now ({@link ProcessTable.Stat#startTicks}), -1 for one that is gone. */
    public static Map<Long, Long> startsOf(Collection<Long> pids) {
        Map<Long, Long> out = new HashMap<>();
        for (long pid : pids) out.put(pid, ProcessTable.stat(pid).map(ProcessTable.Stat::startTicks).orElse(-1L));
        return out;
    }

    /**
     * {@link #killAll} for roots recorded with their start time when they were known (-1: gone by then). A root whose
     * pid now names a process that started at another time is another process (pid_max is 32768 on some machines, and
     * a busy one wraps in minutes): it is left alone, its session too (the kernel does not reuse a pid that still
     * names a session, so the old root's session is empty). Killing by a stale pid killed a parallel test's freshly
     * forked spawn helper (ci40, BoxTest).
     */
    public static int killStarted(Map<Long, Long> roots) {
        long self = ProcessHandle.current().pid();
        Set<Long> sessions = new HashSet<>();
        Set<Long> killed = new HashSet<>();
        for (int round = 0; round < 5; round++) {
            Set<Long> targets = new HashSet<>();
            for (Map.Entry<Long, Long> r : roots.entrySet()) {
                long root = r.getKey();
                java.util.Optional<ProcessTable.Stat> now = ProcessTable.stat(root);
                if (now.isPresent() && now.get().startTicks() != r.getValue()) continue; // reused: not ours
                now.ifPresent(s -> { if (s.session() == root || s.pgrp() == root) sessions.add(s.session()); });
                sessions.add(root); // setsid makes the root its own session leader
                ProcessHandle.of(root).ifPresent(h -> {
                    targets.add(h.pid());
                    h.descendants().forEach(d -> targets.add(d.pid()));
                });
            }
            for (ProcessTable.Stat s : ProcessTable.all()) {
                if (sessions.contains(s.session())) targets.add(s.pid());
            }
            targets.remove(self);
            targets.removeIf(pid -> ProcessTable.stat(pid).map(s -> s.state() == 'Z').orElse(true));
            if (targets.isEmpty()) break;
            for (long pid : targets) {
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
                killed.add(pid);
            }
            sleep(20); // let fork races settle before the next sweep
        }
        return killed.size();
    }

    /**
     * Kills processes (other than this JVM and its ancestors) whose working directory or open files are
     * inside the workspace: an agent child that called setsid and was reparented to init escapes the
     * session sweep but usually still works in the workspace. Full containment needs a PID namespace
     * or cgroup (bubblewrap locally, the container in a pod); this is the fallback without one.
     * Only processes started after {@code startedAfterTicks} (see {@link ProcessTable#newestStart()})
     * are inspected, which keeps the sweep cheap and leaves older processes alone.
     */
    public static int killWorkspaceUsers(Path workspace, long startedAfterTicks) {
        Path ws;
        try {
            ws = workspace.toRealPath();
        } catch (java.io.IOException e) {
            return 0;
        }
        Set<Long> spare = new HashSet<>();
        ProcessHandle.current().parent().ifPresent(h -> { for (ProcessHandle p = h; p != null; p = p.parent().orElse(null)) spare.add(p.pid()); });
        spare.add(ProcessHandle.current().pid());
        int n = 0;
        for (ProcessTable.Stat s : ProcessTable.all()) {
            if (spare.contains(s.pid()) || s.state() == 'Z' || s.startTicks() <= startedAfterTicks) continue;
            if (uses(s.pid(), ws)) {
                ProcessHandle.of(s.pid()).ifPresent(ProcessHandle::destroyForcibly);
                n++;
            }
        }
        return n;
    }

    private static boolean uses(long pid, Path ws) {
        Path proc = Path.of("/proc", Long.toString(pid));
        try {
            if (Files.readSymbolicLink(proc.resolve("cwd")).startsWith(ws)) return true;
        } catch (java.io.IOException | RuntimeException e) {
            return false; // not ours to inspect, or gone
        }
        try (var fds = Files.list(proc.resolve("fd"))) {
            return fds.anyMatch(fd -> {
                try {
                    return Files.readSymbolicLink(fd).startsWith(ws);
                } catch (java.io.IOException | RuntimeException e) {
                    return false;
                }
            });
        } catch (java.io.IOException | RuntimeException e) {
            return false;
        }
    }

    public static boolean anyAlive(Collection<Long> roots) {
        Set<Long> sessions = new HashSet<>(roots);
        for (ProcessTable.Stat s : ProcessTable.all()) {
            if ((sessions.contains(s.session()) || roots.contains(s.pid())) && s.state() != 'Z') return true;
        }
        return false;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
