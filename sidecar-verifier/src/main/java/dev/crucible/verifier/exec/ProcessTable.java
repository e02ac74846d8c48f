package dev.crucible.verifier.exec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Reads /proc: which processes exist, their parent, process group and session. */
public final class ProcessTable {
    private ProcessTable() {}

    /** {@code startTicks}: start time in clock ticks since boot (field 22 of /proc/PID/stat). */
    public record Stat(long pid, String comm, char state, long ppid, long pgrp, long session, long startTicks) {}

    /**
     * "PID-START" of this process: the owner part of the names of temporary folders a SIGKILL would leave behind
     * (crucible-state-, crucible-channels-), so a later run can tell whether their owner is gone.
     */
    public static String selfTag() {
        long pid = ProcessHandle.current().pid();
        return pid + "-" + stat(pid).map(Stat::startTicks).orElse(0L);
    }

    public static Optional<Stat> stat(long pid) {
        try {
            String s = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            int open = s.indexOf('(');
            int close = s.lastIndexOf(')');
            String[] rest = s.substring(close + 2).split(" ");
            return Optional.of(new Stat(pid, s.substring(open + 1, close), rest[0].charAt(0),
                    Long.parseLong(rest[1]), Long.parseLong(rest[2]), Long.parseLong(rest[3]), Long.parseLong(rest[19])));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    public static List<Stat> all() {
        List<Stat> out = new ArrayList<>();
        try (var dir = Files.newDirectoryStream(Path.of("/proc"), p -> p.getFileName().toString().chars().allMatch(Character::isDigit))) {
            for (Path p : dir) stat(Long.parseLong(p.getFileName().toString())).ifPresent(out::add);
        } catch (IOException ignored) {
            // no /proc (not Linux): nothing to report
        }
        return out;
    }

    /** The start time of the newest process now: processes with a later start began after this call. */
    public static long newestStart() {
        long max = 0;
        for (Stat s : all()) max = Math.max(max, s.startTicks());
        return max;
    }

    public static String cmdline(long pid) {
        try {
            byte[] b = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline"));
            for (int i = 0; i < b.length; i++) if (b[i] == 0) b[i] = ' ';
            return new String(b).trim();
        } catch (IOException e) {
            return "";
        }
    }
}
