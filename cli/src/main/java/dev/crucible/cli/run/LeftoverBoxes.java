package dev.crucible.cli.run;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The cgroups of boxes this process made and did not close: what an interrupted run leaves when a box was
 * in use by a thread that never got to close it (a graded command at Ctrl-C). Box names its cgroups
 * {@code box-PID-UID-N} under a {@code crucible} folder of each hierarchy (v1 CPU groups as
 * {@code crucible-box-PID-UID-N} at the top; before, {@code box-PID-UID}); only those of {@code pid} are touched: their processes are
 * killed, then the folders removed. Without root there are none (boxes use rlimits then).
 */
final class LeftoverBoxes {
    static final Path ROOT = Path.of("/sys/fs/cgroup");

    /**
     * What follows the pid in a box's cgroup name: the uid, then the box's serial (Box.open). The serial was missed for a while,
     * and no leftover of a killed run was ever swept (host round 7, cases 3 and 5: {@code box-21977-326529-2} stayed).
     */
    private static final String AFTER_PID = "-\\d+(-\\d+)?";

    private LeftoverBoxes() {}

    /** Kills and removes the leftover cgroups of {@code pid}'s boxes; returns the folders removed. */
    static List<Path> sweep(long pid) {
        List<Path> removed = new ArrayList<>();
        for (Path d : find(ROOT, pid)) {
            for (int i = 0; i < 20 && Files.exists(d); i++) {
                killMembers(d);
                try {
                    Files.delete(d); // rmdir: refused while a process is still in it
                    removed.add(d);
                } catch (IOException busy) {
                    AgentProcesses.sleep(100);
                }
            }
        }
        return removed;
    }

    /**
     * The empty cgroups of boxes whose run is gone: a CLI killed with SIGKILL runs no hook, and its box folders stayed in every
     * hierarchy. Only Crucible's ({@code box-PID-UID} where Box puts them), only when no process named PID exists any more
     * (a PID reused by another process keeps them: left, not guessed at), only empty ones (rmdir refuses a cgroup with a
     * process in it; nothing is killed) and only past {@code minAge}. Returns the folders removed.
     */
    static List<Path> sweepDead(Path root, java.time.Duration minAge) {
        Pattern name = Pattern.compile("(crucible-)?box-(\\d+)" + AFTER_PID);
        List<Path> removed = new ArrayList<>();
        long before = System.currentTimeMillis() - minAge.toMillis();
        for (Path d : matching(root, name)) {
            java.util.regex.Matcher m = name.matcher(d.getFileName().toString());
            if (!m.matches() || ProcessHandle.of(Long.parseLong(m.group(2))).isPresent()) continue;
            try {
                if (Files.getLastModifiedTime(d).toMillis() > before) continue;
                Files.delete(d);
                removed.add(d);
            } catch (IOException | RuntimeException inUseOrGone) {
                // a process is still in it, or another run removed it first
            }
        }
        return removed;
    }

    /** The cgroup folders named for {@code pid}'s boxes under {@code root} (v1 and v2 layouts). */
    static List<Path> find(Path root, long pid) {
        return matching(root, Pattern.compile("(crucible-)?box-" + pid + AFTER_PID));
    }

    private static List<Path> matching(Path root, Pattern name) {
        Set<Path> parents = new LinkedHashSet<>(List.of(root, root.resolve("crucible")));
        try (Stream<Path> s = Files.list(root)) {
            s.filter(Files::isDirectory).forEach(h -> {
                parents.add(h);
                parents.add(h.resolve("crucible"));
            });
        } catch (IOException | RuntimeException none) {
            return List.of();
        }
        Set<Path> out = new LinkedHashSet<>();
        for (Path p : parents) {
            if (!Files.isDirectory(p)) continue;
            try (Stream<Path> s = Files.list(p)) {
                s.filter(d -> name.matcher(d.getFileName().toString()).matches() && Files.isDirectory(d)).forEach(d -> {
                    try {
                        out.add(d.toRealPath()); // cpu and cpuacct are one hierarchy under two names
                    } catch (IOException gone) {
                        // removed meanwhile
                    }
                });
            } catch (IOException | RuntimeException unreadable) {
                // not a hierarchy we can read
            }
        }
        return new ArrayList<>(out);
    }

    private static void killMembers(Path cgroup) {
        try {
            // cgroup v2 kills its members itself, with no pid read here that could be reused before the kill
            if (Files.exists(cgroup.resolve("cgroup.kill"))) Files.writeString(cgroup.resolve("cgroup.kill"), "1");
        } catch (IOException | RuntimeException refused) {
            // an older kernel, or removed meanwhile: by pid below (ProcessHandle.of records the start time it then checks)
        }
        try {
            for (String line : Files.readAllLines(cgroup.resolve("cgroup.procs"))) {
                if (!line.isBlank()) ProcessHandle.of(Long.parseLong(line.strip())).ifPresent(ProcessHandle::destroyForcibly);
            }
        } catch (IOException | RuntimeException gone) {
            // emptied or removed meanwhile
        }
    }
}
