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
        return statfsUsed(mine);
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

    /**
     * The sum of (blocks - free blocks) x block size over the paths of {@code mounts} (device -> path) where the path still
     * shows that device and a tmpfs: a mount gone or covered meanwhile (at the run's end) would otherwise be read as the
     * folder under it, on the host's disk (one sample read 74,528 MiB so: the root file system's use).
     */
    private static long statfsUsed(Map<String, String> mounts) {
        if (mounts.isEmpty()) return 0;
        Map<String, String> devOf = stat(List.of("stat", "-c", "%n|%Hd:%Ld"), mounts.values());
        Map<String, String> fs = stat(List.of("stat", "-f", "-c", "%n|%T %b %f %S"), mounts.values());
        long sum = 0;
        for (Map.Entry<String, String> m : mounts.entrySet()) {
            String[] f = fs.getOrDefault(m.getValue(), "").split(" ");
            if (!m.getKey().equals(devOf.get(m.getValue())) || f.length != 4 || !"tmpfs".equals(f[0])) continue;
            try {
                sum += (Long.parseLong(f[1]) - Long.parseLong(f[2])) * Long.parseLong(f[3]);
            } catch (NumberFormatException e) {
                // not a figure: not counted
            }
        }
        return sum;
    }

    /** Runs {@code cmd} (a format of {@code %n|...}) on {@code paths}: path -> what follows the last '|'; a path gone is missing. */
    private static Map<String, String> stat(List<String> cmd, java.util.Collection<String> paths) {
        Map<String, String> out = new java.util.HashMap<>();
        List<String> all = new ArrayList<>(cmd);
        all.add("--");
        all.addAll(paths);
        try {
            Process p = new ProcessBuilder(all).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor(30, TimeUnit.SECONDS);
            for (String l : text.split("\n")) {
                int bar = l.lastIndexOf('|');
                if (bar > 0) out.put(l.substring(0, bar), l.substring(bar + 1).trim());
            }
        } catch (IOException e) {
            return out;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return out;
    }
}
