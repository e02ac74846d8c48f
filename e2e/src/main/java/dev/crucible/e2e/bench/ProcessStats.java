package dev.crucible.e2e.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU seconds and resident memory of a process, from /proc: for the peer controller (a subprocess) and
 * for this JVM (where Crucible's operator runs in-process, beside the benchmark's own clients).
 */
record ProcessStats(double cpuSeconds, long rssMib) {

    /** Linux reports utime/stime in USER_HZ ticks, which is 100 on every Linux ABI this runs on. */
    private static final double TICKS_PER_SECOND = 100.0;

    /** Total CPU (user + system) since the process started, and its current RSS. */
    static ProcessStats of(long pid) {
        Path proc = Path.of("/proc", Long.toString(pid));
        try {
            String stat = Files.readString(proc.resolve("stat"));
            // Fields after the command name, which is in parentheses and may hold spaces: state is field 3,
            // utime and stime are fields 14 and 15.
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            double cpu = (Long.parseLong(f[11]) + Long.parseLong(f[12])) / TICKS_PER_SECOND;
            return new ProcessStats(cpu, rssMib(proc));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** This JVM: CPU since {@code cpuNanosBefore} (from {@link #jvmCpuNanos()}) and its current RSS. */
    static ProcessStats self(long cpuNanosBefore) {
        return new ProcessStats((jvmCpuNanos() - cpuNanosBefore) / 1e9, rssMib(Path.of("/proc/self")));
    }

    static long jvmCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /** Peak resident memory (VmHWM) of process {@code pid} since it started. */
    static long peakRssMib(long pid) {
        return statusMib(Path.of("/proc", Long.toString(pid)), "VmHWM:");
    }

    private static long rssMib(Path proc) {
        return statusMib(proc, "VmRSS:");
    }

    private static long statusMib(Path proc, String field) {
        try {
            for (String line : Files.readAllLines(proc.resolve("status"))) {
                if (line.startsWith(field)) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024;   // "VmRSS:   123456 kB"
                }
            }
            return -1;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
