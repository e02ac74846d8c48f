package dev.crucible.snapshot.gpu;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.stream.Stream;

/**
 * Which processes of a tree hold CUDA state: those mapping libcuda or an NVIDIA device file
 * (/dev/nvidia*), seen in /proc/PID/maps or among their open fds. CRIU cannot dump these as
 * they are; cuda-checkpoint must move their device state to host memory first.
 */
public final class GpuProcesses {

    private GpuProcesses() {
    }

    public static List<Long> detect(Collection<Long> pids) {
        List<Long> out = new ArrayList<>();
        for (long pid : pids) {
            if (usesGpu(Path.of("/proc", Long.toString(pid)))) {
                out.add(pid);
            }
        }
        return out;
    }

    /** {@code procDir} is /proc/PID (a parameter so tests can feed a fake one). */
    public static boolean usesGpu(Path procDir) {
        try (Stream<String> lines = Files.lines(procDir.resolve("maps"))) {
            if (lines.anyMatch(GpuProcesses::isGpuMapping)) {
                return true;
            }
        } catch (IOException | java.io.UncheckedIOException e) {
            return false;
        }
        try (Stream<Path> fds = Files.list(procDir.resolve("fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    if (Files.readSymbolicLink(fd).toString().startsWith("/dev/nvidia")) {
                        return true;
                    }
                } catch (IOException ignored) {
                    // fd closed meanwhile
                }
            }
        } catch (IOException e) {
            return false;
        }
        return false;
    }

    static boolean isGpuMapping(String mapsLine) {
        return mapsLine.contains("libcuda.so") || mapsLine.contains("/dev/nvidia");
    }
}
