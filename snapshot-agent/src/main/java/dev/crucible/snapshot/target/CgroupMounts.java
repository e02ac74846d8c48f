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
        try {
            return cgroup2In(Files.readAllLines(Path.of("/proc/self/mountinfo")));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * The cgroup v1 hierarchies' mount points (fstype {@code cgroup}), the pids and freezer ones first:
     * on a v1 or hybrid host kubelet puts pods there, and the v2 mount (if any) holds no pod.
     */
    public static List<Path> cgroupV1() {
        try {
            return cgroupV1In(Files.readAllLines(Path.of("/proc/self/mountinfo")));
        } catch (IOException e) {
            return List.of();
        }
    }

    static List<Path> cgroupV1In(List<String> mountinfo) {
        List<Path> out = new java.util.ArrayList<>();
        for (String line : mountinfo) {
            int dash = line.indexOf(" - ");
            if (dash < 0) {
                continue;
            }
            String[] after = line.substring(dash + 3).split(" ");
            if (after.length > 0 && after[0].equals("cgroup")) {
                String[] before = line.substring(0, dash).split(" ");
                Path mount = Path.of(before[4].replace("\\040", " "));
                String opts = after.length > 2 ? after[2] : "";
                boolean first = java.util.Arrays.asList(opts.split(",")).stream().anyMatch(o -> o.equals("pids") || o.equals("freezer"));
                if (first) out.add(0, mount);
                else out.add(mount);
            }
        }
        return out;
    }

    /** Parses mountinfo lines: "... MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTS". */
    static Optional<Path> cgroup2In(List<String> mountinfo) {
        for (String line : mountinfo) {
            int dash = line.indexOf(" - ");
            if (dash < 0) {
                continue;
            }
            String[] after = line.substring(dash + 3).split(" ");
            if (after.length > 0 && after[0].equals("cgroup2")) {
                String[] before = line.substring(0, dash).split(" ");
                return Optional.of(Path.of(before[4].replace("\\040", " ")));
            }
        }
        return Optional.empty();
    }
}
