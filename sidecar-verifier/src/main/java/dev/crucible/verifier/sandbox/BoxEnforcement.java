package dev.crucible.verifier.sandbox;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;

/**
 * How a box's limits are enforced: the launcher's rlimit lines (where cgroups are missing, or as a
 * per-file cap), the disk use of its writable folders, and the one line that tells a person what is
 * enforced and what is not, and why.
 */
final class BoxEnforcement {
    private BoxEnforcement() {
    }

    /** What this box enforces, and what it does not and why: one line for the terminal. */
    static String describe(BoxSpec spec, int uid, Cgroups cgroups, String cgroupProblem) {
        BoxLimits l = spec.limits();
        StringBuilder s = new StringBuilder("sandbox: bubblewrap box ");
        s.append(Box.ROOT ? "as uid " + uid + " (root inside maps to it)" : "as uid " + uid + " (this user)")
                .append(", no capabilities, no network, own PID/IPC/UTS/mount namespaces, fresh /proc, read-only /dev, /dev/shm and /tmp (")
                .append(Quantities.human(l.tmpBytes())).append(" each); sees read-only /usr, selected /etc files");
        List<Path> tools = HostView.toolchains(System.getenv().getOrDefault("PATH", ""), System.getenv());
        if (!tools.isEmpty()) s.append(", ").append(tools.stream().map(Path::toString).reduce((a, b) -> a + ", " + b).orElse(""));
        s.append("; writable: ").append(spec.writable().isEmpty() ? "nothing but /tmp" : String.join(", ", spec.writable().stream().map(Path::toString).toList()));
        if (!spec.readOnly().isEmpty()) s.append("; ").append(spec.readOnly().size()).append(" path(s) read-only");
        if (!spec.files().isEmpty()) s.append("; ").append(spec.files().size()).append(" command file(s) read-only");
        List<String> on = new ArrayList<>();
        List<String> off = new ArrayList<>();
        String how = cgroups != null ? "cgroup " + cgroups.version() : "rlimit";
        if (l.memoryBytes() > 0) {
            on.add("memory " + Quantities.human(l.memoryBytes()) + " (" + (cgroups != null ? how : "RLIMIT_AS: the address space of each process,"
                    + " not resident memory") + ")");
        } else {
            off.add("memory (no spec.resources.memory)");
        }
        if (l.pids() > 0) on.add("processes " + l.pids() + " (" + (cgroups != null ? how : nproc(uid)) + ")");
        if (l.millicores() > 0) {
            if (cgroups != null) on.add("CPU " + l.millicores() + "m (" + how + " quota)");
            else off.add("CPU share (needs cgroups: " + cgroupProblem + ")");
        }
        if (l.cpuSeconds() > 0) on.add("CPU time " + l.cpuSeconds() + " s (" + (cgroups != null ? how + ", watched" : "RLIMIT_CPU, per process") + ")");
        else off.add("CPU time (no spec.resources.cpu)");
        if (spec.volume() != null) {
            on.add("disk " + Quantities.human(spec.volume().bytes()) + " (" + spec.volume().kind() + " of that size holds the workspace and"
                    + " the grading copies: writes past it fail with ENOSPC; sparse files count the blocks written)");
        } else if (l.diskBytes() > 0) {
            on.add("disk " + Quantities.human(l.diskBytes()) + " (writable folders checked every 2 s, RLIMIT_FSIZE per file)");
            off.add("disk as a hard cap (no size-capped volume: writes between two checks, sparse files and host copies of the"
                    + " workspace can pass it)");
        } else {
            off.add("disk of the workspace (no spec.resources.ephemeralStorage)");
        }
        if (cgroups == null && l.memoryBytes() > 0) off.add("the box's memory in total (each process may map " + Quantities.human(l.memoryBytes()) + "; needs cgroups)");
        if (cgroups == null && l.cpuSeconds() > 0) off.add("the box's CPU time in total (needs cgroups)");
        s.append("; limits: ").append(on.isEmpty() ? "none" : String.join(", ", on));
        if (!off.isEmpty()) s.append("; NOT limited: ").append(String.join(", ", off));
        if (cgroups == null && cgroupProblem != null) s.append(" [no cgroups: ").append(cgroupProblem).append("]");
        return s.toString();
    }

    /**
     * What RLIMIT_NPROC counts, as measured (kernel 6.18, uid 64123, limit 1024, an agent forking until refused): every task
     * (process or thread) of the uid. In the CLI's own user namespace (MountNamespace, the run without root) that is the
     * run's own, its JVM's threads included (the agent got 973 of 1024), and 300 processes of the uid outside did not count
     * (973 again); in the host's namespace (CRUCIBLE_DISK_NAMESPACE=0) they did (675). RlimitLinesTest checks both.
     */
    static String nproc(int uid) {
        String own = "this CLI's own threads (" + threads() + " as this line is printed, more as the run goes on) and any parallel attempt's"
                + " processes included";
        return "RLIMIT_NPROC: every process and thread of uid " + uid + (UserNamespace.own()
                ? " in this run's user namespace counts, " + own + "; the uid's processes outside it do not"
                : " on this machine counts, " + own + ", and every other process of that uid");
    }

    /** This JVM's thread count, from /proc (0 when unreadable). */
    private static long threads() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Threads:")) return Long.parseLong(line.substring(8).strip());
            }
        } catch (IOException | RuntimeException e) {
            // not Linux's /proc
        }
        return 0;
    }

    /** Launcher lines setting the rlimits (bash's ulimit: -f and -v count KiB; the soft CPU limit before the hard one, never above it). */
    static List<String> rlimits(BoxLimits l, boolean cgroups) {
        List<String> a = new ArrayList<>();
        if (l.diskBytes() > 0) a.add("ulimit -f " + Math.max(1, l.diskBytes() / 1024));
        if (!cgroups) {
            if (l.memoryBytes() > 0) a.add("ulimit -v " + Math.max(1, l.memoryBytes() / 1024));
            if (l.pids() > 0) a.add("ulimit -u " + l.pids());
            if (l.cpuSeconds() > 0) { // SIGXCPU first (a reason), SIGKILL 2 s later
                a.add("ulimit -S -t " + l.cpuSeconds());
                a.add("ulimit -H -t " + (l.cpuSeconds() + 2));
            }
        }
        return a;
    }

    /** What a process says when RLIMIT_AS refused it memory (Python, glibc's strerror, C++, Go, Node), lower case. */
    private static final List<String> NO_MEMORY = List.of("memoryerror", "cannot allocate memory", "std::bad_alloc", "out of memory",
            "allocation failed");
    /** What a shell or runtime says when RLIMIT_NPROC refused a fork or a thread (EAGAIN's strerror, bash, dash, Python), lower case. */
    private static final List<String> NO_PROCESS = List.of("resource temporarily unavailable", "fork: retry", "cannot fork", "can't fork",
            "can't start new thread");

    /**
     * Without cgroups, RLIMIT_AS and RLIMIT_NPROC are held inside the box only: the allocation or fork fails (ENOMEM, EAGAIN), the
     * agent exits 1 or 2 by itself, and no signal tells the host. This names the limit as likely hit when the box had that rlimit,
     * the agent exited with a status of its own (1 to 125), and the tail of its output ({@code outputTail}) says what that failure
     * says; else null. The agent chooses its output, so this is a note for the result's message, never a reason or a phase: it
     * quotes only the fixed phrase it matched, nothing of the agent's text.
     */
    static String rlimitLikely(BoxLimits l, boolean cgroups, int exitCode, String outputTail) {
        if (cgroups || exitCode < 1 || exitCode > 125 || outputTail == null) return null;
        String t = outputTail.toLowerCase(java.util.Locale.ROOT);
        List<String> hits = new ArrayList<>();
        if (l.memoryBytes() > 0) {
            NO_MEMORY.stream().filter(t::contains).findFirst().ifPresent(w -> hits.add("the memory limit " + Quantities.human(l.memoryBytes())
                    + " (RLIMIT_AS, per process) was likely hit: the agent exited " + exitCode + " and its output says \"" + w + "\""));
        }
        if (l.pids() > 0) {
            NO_PROCESS.stream().filter(t::contains).findFirst().ifPresent(w -> hits.add("the process limit " + l.pids()
                    + " (RLIMIT_NPROC) was likely hit: the agent exited " + exitCode + " and its output says \"" + w + "\""));
        }
        return hits.isEmpty() ? null : String.join("; ", hits) + " (no cgroups: the box cannot see the refusal itself)";
    }

    /**
     * The disk limit's reason when it was reached, else null. On a volume the kernel holds the limit and its
     * filling up is only the reason to end the box (read every call: one statvfs); without one the writable
     * folders are walked, only when {@code walk} (every 2 s).
     */
    static String diskExceeded(BoxSpec spec, boolean walk) {
        if (spec.volume() != null) return spec.volume().full() ? spec.volume().reason() : null;
        long limit = spec.limits().diskBytes();
        if (!walk || limit <= 0) return null;
        long total = 0;
        java.util.Set<Object> counted = new java.util.HashSet<>(); // hard links: one file, counted once in all the folders
        for (Path w : spec.writable()) total += size(w, counted);
        return total > limit ? "disk limit " + Quantities.human(limit) + " reached (" + Quantities.human(total) + " in the writable folders)" : null;
    }

    /** Bytes of the files under {@code dir} (what could be read). */
    static long size(Path dir) {
        return size(dir, new java.util.HashSet<>());
    }

    /**
     * As {@link #size(Path)}, each file once: one whose key (device, inode) is in {@code counted} already is a hard link to a
     * file counted (host round 7, case 16: 3,000 links to a 60 MB file read as 171,718 MiB, and grading was ended for a disk
     * limit the 60 MB never passed).
     */
    static long size(Path dir, java.util.Set<Object> counted) {
        long[] n = {0};
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path f, BasicFileAttributes a) {
                    Object key = a.fileKey();
                    if (key == null || counted.add(key)) n[0] += a.size();
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path f, IOException e) { return FileVisitResult.CONTINUE; }
            });
        } catch (IOException e) {
            // counted what could be read
        }
        return n[0];
    }
}
