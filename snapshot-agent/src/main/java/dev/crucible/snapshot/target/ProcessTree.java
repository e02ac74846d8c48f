package dev.crucible.snapshot.target;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/** A process and all its descendants, root first (breadth-first), each with its start time. */
public final class ProcessTree {

    private ProcessTree() {
    }

    public static List<ProcessRef> of(long rootPid) {
        List<ProcessRef> out = new ArrayList<>();
        Deque<Long> queue = new ArrayDeque<>();
        queue.add(rootPid);
        while (!queue.isEmpty()) {
            long pid = queue.poll();
            try {
                out.add(ProcessRef.of(pid));
                queue.addAll(ProcFs.children(pid));
            } catch (NoSuchProcessException e) {
                if (pid == rootPid) {
                    throw e;
                }
                // a descendant exited while we walked; nothing to freeze there
            }
        }
        return out;
    }

    /** True when the process is PID 1 of its own (non-initial) PID namespace. */
    public static boolean isPidNamespaceRoot(long pid) {
        List<Long> ns = ProcFs.nsPids(pid);
        return ns.size() > 1 && ns.get(ns.size() - 1) == 1L;
    }
}
