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
