package dev.crucible.snapshot.target;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** Finds the cgroup v2 mount ("/sys/fs/cgroup" on unified hosts, "/sys/fs/cgroup/unified" on hybrid ones). */
public final class CgroupMounts {

    private CgroupMounts() {
    }

    public static Optional<Path> cgroup2() {
        return cgroup2In(mountinfo());
    }

    /**
     * The cgroup v1 hierarchies' mount points (fstype {@code cgroup}), the pids and freezer ones first:
     * on a v1 or hybrid host kubelet puts pods there, and the v2 mount (if any) holds no pod.
     */
    public static List<Path> cgroupV1() {
        return cgroupV1In(mountinfo());
    }

    static List<Path> cgroupV1In(List<String> mountinfo) {
        List<Path> out = new java.util.ArrayList<>();
        for (Mount m : mounts(mountinfo)) {
            if (m.fstype().equals("cgroup")) {
                boolean first = java.util.Arrays.stream(m.superOptions().split(",")).anyMatch(o -> o.equals("pids") || o.equals("freezer"));
                if (first) out.add(0, m.point());
                else out.add(m.point());
            }
        }
        return out;
    }

    static Optional<Path> cgroup2In(List<String> mountinfo) {
        return mounts(mountinfo).stream().filter(m -> m.fstype().equals("cgroup2")).map(Mount::point).findFirst();
    }

    private record Mount(Path point, String fstype, String superOptions) {
    }

    /** Parses mountinfo lines: "... MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTS". */
    private static List<Mount> mounts(List<String> mountinfo) {
        List<Mount> out = new java.util.ArrayList<>();
        for (String line : mountinfo) {
            int dash = line.indexOf(" - ");
            if (dash < 0) {
                continue;
            }
            String[] after = line.substring(dash + 3).split(" ");
            String[] before = line.substring(0, dash).split(" ");
            if (after.length > 0 && before.length > 4) {
                out.add(new Mount(Path.of(before[4].replace("\\040", " ")), after[0], after.length > 2 ? after[2] : ""));
            }
        }
        return out;
    }

    private static List<String> mountinfo() {
        try {
            return Files.readAllLines(Path.of("/proc/self/mountinfo"));
        } catch (IOException e) {
            return List.of();
        }
    }
}
