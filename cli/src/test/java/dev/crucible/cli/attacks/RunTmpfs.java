package dev.crucible.cli.attacks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The shared memory one run holds, read on the host: the bytes in use on every tmpfs that the run's processes (the CLI
 * and its descendants: the mount namespace it runs itself again in without root, the boxes' own) see and this JVM's
 * namespace does not. A tmpfs's pages are memory; its statfs is the kernel's count of them, asked by this process
 * through {@code /proc/PID/root}, not anything the run reports. Unlike {@code Shmem} of /proc/meminfo it holds no other
 * process's /dev/shm or tmpfs: two runs on one machine (a CI run and a developer's) once failed each other's bound.
 */
final class RunTmpfs {
    private RunTmpfs() {}

    /** Bytes in use on the run's own tmpfs mounts now (0 once the run has ended: its namespaces and their mounts are gone). */
    static long used(ProcessHandle cli) {
        Set<String> host = tmpfsDevices(Path.of("/proc/self/mountinfo")).keySet();
        Map<String, String> mine = new LinkedHashMap<>(); // device -> a path to it from the host
        Set<String> namespaces = new HashSet<>();
        for (ProcessHandle p : Stream.concat(Stream.of(cli), cli.descendants()).toList()) {
            String proc = "/proc/" + p.pid();
            try {
                if (!namespaces.add(Files.readSymbolicLink(Path.of(proc, "ns", "mnt")).toString())) continue;
            } catch (IOException | UnsupportedOperationException e) {
                continue; // ended meanwhile
            }
            tmpfsDevices(Path.of(proc, "mountinfo")).forEach((dev, mountPoint) -> {
                if (!host.contains(dev)) mine.putIfAbsent(dev, proc + "/root" + mountPoint);
            });
        }
        return statfsUsed(new ArrayList<>(mine.values()));
    }

    /** The tmpfs superblocks (major:minor) of one mountinfo, each with a mount point, relative to that process's root. */
    static Map<String, String> tmpfsDevices(Path mountinfo) {
        Map<String, String> out = new LinkedHashMap<>();
        List<String> lines;
        try {
            lines = Files.readAllLines(mountinfo);
        } catch (IOException e) {
            return out;
        }
        for (String l : lines) {
            String[] f = l.split(" ");
            int dash = List.of(f).indexOf("-");
            if (dash < 0 || dash + 1 >= f.length || !"tmpfs".equals(f[dash + 1])) continue;
            out.putIfAbsent(f[2], unescape(f[4]));
        }
        return out;
    }

    /** mountinfo writes space, tab, newline and backslash as \ooo. */
    private static String unescape(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) == '\\' && i + 3 < s.length() && s.substring(i + 1, i + 4).matches("[0-7]{3}")) {
                b.append((char) Integer.parseInt(s.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                b.append(s.charAt(i));
            }
        }
        return b.toString();
    }

    /** The sum of (blocks - free blocks) x block size over {@code paths}, by one stat -f; a path gone meanwhile counts 0. */
    private static long statfsUsed(List<String> paths) {
        if (paths.isEmpty()) return 0;
        List<String> cmd = new ArrayList<>(List.of("stat", "-f", "-c", "%b %f %S"));
        cmd.addAll(paths);
        try {
            Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor(30, TimeUnit.SECONDS);
            long sum = 0;
            for (String l : out.split("\n")) {
                String[] f = l.trim().split("\\s+");
                if (f.length == 3) sum += (Long.parseLong(f[0]) - Long.parseLong(f[1])) * Long.parseLong(f[2]);
            }
            return sum;
        } catch (IOException | NumberFormatException e) {
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        }
    }
}
