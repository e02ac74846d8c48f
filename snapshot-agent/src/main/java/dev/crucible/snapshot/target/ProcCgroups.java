package dev.crucible.snapshot.target;

import java.util.ArrayList;
import java.util.List;

/** The cgroup paths of a process, one per hierarchy line of /proc/PID/cgroup (v1 and v2). */
public record ProcCgroups(long pid, List<String> paths) {

    public static ProcCgroups of(long pid) {
        List<String> out = new ArrayList<>();
        for (String line : ProcFs.lines(java.nio.file.Path.of("/proc", Long.toString(pid), "cgroup"), pid)) {
            int second = line.indexOf(':', line.indexOf(':') + 1);
            if (second > 0) {
                out.add(line.substring(second + 1));
            }
        }
        return new ProcCgroups(pid, out);
    }

    public static ProcCgroups self() {
        return of(ProcessHandle.current().pid());
    }

    /** The pod UID from a kubepods path ("…/kubepods-burstable-pod1234_…slice/…" or "/kubepods/…/pod1234-…/…"), else null. */
    public static String podUid(String path) {
        if (!path.contains("kubepods")) {
            return null;
        }
        java.util.regex.Matcher m = POD_SEGMENT.matcher(path);
        return m.find() ? m.group(1).replace('_', '-') : null;
    }

    private static final java.util.regex.Pattern POD_SEGMENT = java.util.regex.Pattern.compile(
            "pod([0-9a-f]{8}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{12})(?:\\.slice)?(?:/|$)");

    /** The pod UID all of this process's hierarchies agree on, or null if it is not in a pod. */
    public String podUid() {
        String uid = null;
        for (String p : paths) {
            String u = podUid(p);
            if (u == null) {
                if (!p.equals("/")) {
                    return null; // some hierarchy places it outside any pod
                }
                continue;
            }
            if (uid != null && !uid.equals(u)) {
                return null;
            }
            uid = u;
        }
        return uid;
    }

    /** True when some hierarchy places the process under a top-level "crucible" cgroup. */
    public boolean underCrucible() {
        return paths.stream().anyMatch(p -> p.equals("/crucible") || p.startsWith("/crucible/"));
    }
}
