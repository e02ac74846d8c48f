package dev.crucible.verifier.sandbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One box's cgroups under a {@code crucible/} parent, v1 (one folder per controller: memory, pids,
 * cpu, cpuacct) or v2 (one unified folder). The launcher joins them before it drops privileges;
 * {@link #exceeded} reads the counters that say a limit was hit; {@link #close} kills whatever is
 * left and removes the folders.
 */
final class Cgroups implements AutoCloseable {
    static final Path ROOT = Path.of("/sys/fs/cgroup");
    private final boolean v2;
    private final Map<String, Path> dirs; // controller ("memory", "pids", "cpu", "cpuacct", or "unified") → folder
    private final BoxLimits limits;

    private Cgroups(boolean v2, Map<String, Path> dirs, BoxLimits limits) {
        this.v2 = v2;
        this.dirs = dirs;
        this.limits = limits;
    }

    static boolean unified() { return Files.exists(ROOT.resolve("cgroup.controllers")); }

    /** "v1" or "v2" when this process may make cgroups for boxes, else empty with why not in {@code why[0]}. */
    static Optional<String> usable(String[] why) {
        if (!Files.isDirectory(ROOT)) { why[0] = "no /sys/fs/cgroup"; return Optional.empty(); }
        Path probe = unified() ? ROOT : ROOT.resolve("memory");
        if (!Files.isWritable(probe)) { why[0] = probe + " is not writable (not root, or cgroups are read-only here)"; return Optional.empty(); }
        if (!unified()) for (String c : List.of("memory", "pids", "cpuacct")) {
            if (!Files.isDirectory(ROOT.resolve(c))) { why[0] = "cgroup v1 controller " + c + " is not mounted"; return Optional.empty(); }
        }
        return Optional.of(unified() ? "v2" : "v1");
    }

    static Cgroups create(String name, BoxLimits l) throws IOException {
        if (unified()) {
            Path parent = ROOT.resolve("crucible");
            Files.createDirectories(parent);
            enable(ROOT, "+memory +pids +cpu");
            enable(parent, "+memory +pids +cpu");
            Path d = Files.createDirectories(parent.resolve(name));
            Cgroups g = new Cgroups(true, Map.of("unified", d), l);
            if (l.memoryBytes() > 0) { write(d, "memory.max", Long.toString(l.memoryBytes())); tryWrite(d, "memory.swap.max", "0"); }
            if (l.pids() > 0) write(d, "pids.max", Integer.toString(l.pids()));
            if (l.millicores() > 0) write(d, "cpu.max", (l.millicores() * 100) + " 100000");
            return g;
        }
        Map<String, Path> dirs = new LinkedHashMap<>();
        for (String c : List.of("memory", "pids", "cpu", "cpuacct")) {
            Path base = ROOT.resolve(c);
            if (!Files.isDirectory(base)) continue;
            Path real = base.toRealPath(); // cpu and cpuacct are often one hierarchy ("cpu,cpuacct")
            // CPU groups sit at the hierarchy's top, not under a shared crucible/: there every box of the machine
            // (parallel attempts, other runs) would share one task's weight against each process outside,
            // and a graded pytest would run several times slower than the same command bare under load.
            Path d = c.startsWith("cpu") ? real.resolve("crucible-" + name) : real.resolve("crucible").resolve(name);
            dirs.put(c, dirs.containsValue(d) ? d : Files.createDirectories(d));
        }
        Cgroups g = new Cgroups(false, dirs, l);
        Path mem = dirs.get("memory");
        if (mem != null && l.memoryBytes() > 0) {
            write(mem, "memory.limit_in_bytes", Long.toString(l.memoryBytes()));
            tryWrite(mem, "memory.memsw.limit_in_bytes", Long.toString(l.memoryBytes())); // no escape into swap
        }
        if (dirs.get("pids") != null && l.pids() > 0) write(dirs.get("pids"), "pids.max", Integer.toString(l.pids()));
        if (dirs.get("cpu") != null && l.millicores() > 0) {
            write(dirs.get("cpu"), "cpu.cfs_period_us", "100000");
            write(dirs.get("cpu"), "cpu.cfs_quota_us", Long.toString(l.millicores() * 100));
        }
        return g;
    }

    String version() { return v2 ? "v2" : "v1"; }

    /** The cgroup.procs files the launcher writes its pid to. */
    List<Path> procsFiles() {
        List<Path> l = new ArrayList<>();
        for (Path d : new java.util.LinkedHashSet<>(dirs.values())) l.add(d.resolve("cgroup.procs"));
        return l;
    }

    /** Which controllers carry which limit, for {@link Box#describe}. */
    boolean hasCpuQuota() { return v2 || dirs.containsKey("cpu"); }

    /** The first limit that was hit, as a reason for result.json. */
    Optional<String> exceeded() {
        Path mem = v2 ? dirs.get("unified") : dirs.get("memory");
        if (limits.memoryBytes() > 0 && mem != null) {
            long ooms = v2 ? field(read(mem, "memory.events"), "oom_kill") : field(read(mem, "memory.oom_control"), "oom_kill");
            if (ooms > 0) return Optional.of("memory limit " + Quantities.human(limits.memoryBytes()) + " reached (OOM kill)");
        }
        Path pids = v2 ? dirs.get("unified") : dirs.get("pids");
        if (limits.pids() > 0 && pids != null && field(read(pids, "pids.events"), "max") > 0) {
            return Optional.of("process limit " + limits.pids() + " reached (fork refused)");
        }
        if (limits.cpuSeconds() > 0 && cpuNanos() > limits.cpuSeconds() * 1_000_000_000L) {
            return Optional.of("CPU time limit " + limits.cpuSeconds() + " s reached");
        }
        return Optional.empty();
    }

    long cpuNanos() {
        if (v2) return field(read(dirs.get("unified"), "cpu.stat"), "usage_usec") * 1000;
        Path a = dirs.get("cpuacct");
        String s = a == null ? "" : read(a, "cpuacct.usage").strip();
        return s.isEmpty() ? 0 : Long.parseLong(s);
    }

    /** SIGKILLs every process in the box's cgroups until none is left (a fork bomb is bounded by pids.max). */
    void killAll() {
        for (int round = 0; round < 50; round++) {
            if (v2 && tryWrite(dirs.get("unified"), "cgroup.kill", "1")) { sleep(20); }
            List<Long> pids = members();
            if (pids.isEmpty()) return;
            for (long pid : pids) ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
            sleep(20);
        }
    }

    List<Long> members() {
        List<Long> out = new ArrayList<>();
        for (Path d : new java.util.LinkedHashSet<>(dirs.values())) {
            for (String line : read(d, "cgroup.procs").split("\n")) {
                if (!line.isBlank()) {
                    long pid = Long.parseLong(line.strip());
                    if (!out.contains(pid)) out.add(pid);
                }
            }
        }
        return out;
    }

    @Override
    public void close() {
        killAll();
        for (Path d : new java.util.LinkedHashSet<>(dirs.values())) {
            for (int i = 0; i < 50; i++) {
                try {
                    Files.deleteIfExists(d);
                    break;
                } catch (IOException busy) {
                    sleep(20); // a killed process leaves its cgroup a moment after SIGKILL
                }
            }
        }
    }

    private static void enable(Path dir, String controllers) {
        for (String c : controllers.split(" ")) tryWrite(dir, "cgroup.subtree_control", c);
    }

    private static void write(Path dir, String file, String value) throws IOException {
        Files.writeString(dir.resolve(file), value);
    }

    private static boolean tryWrite(Path dir, String file, String value) {
        try {
            Files.writeString(dir.resolve(file), value);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static String read(Path dir, String file) {
        try {
            return Files.readString(dir.resolve(file));
        } catch (IOException e) {
            return "";
        }
    }

    /** The number after {@code key} in a "key value" per line file (0 when absent). */
    static long field(String text, String key) {
        for (String line : text.split("\n")) {
            String[] kv = line.strip().split("\\s+");
            if (kv.length == 2 && kv[0].equals(key)) {
                try {
                    return Long.parseLong(kv[1]);
                } catch (NumberFormatException e) {
                    return 0;
                }
            }
        }
        return 0;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
