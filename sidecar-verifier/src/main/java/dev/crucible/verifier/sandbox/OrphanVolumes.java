package dev.crucible.verifier.sandbox;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link DiskVolume}s whose process died without closing them (SIGKILL, a crash): each volume's image has an
 * owner file beside it naming the process (pid and start time); {@link #sweep} unmounts every loop mount whose
 * image has such a file naming a process that is gone, and deletes the image. Mounts of anything else are
 * never touched: only an image with an owner file this class wrote is ours.
 */
public final class OrphanVolumes {
    private static final String MAGIC = "crucible-disk-volume";

    private OrphanVolumes() {}

    static Path ownerFile(Path image) { return image.resolveSibling(image.getFileName() + ".owner"); }

    /** Marks {@code image} as this process's. */
    static void claim(Path image) throws IOException {
        ProcessHandle me = ProcessHandle.current();
        Files.writeString(ownerFile(image), MAGIC + " " + me.pid() + " " + startOf(me) + "\n");
    }

    /** Unmounts and deletes the volumes of dead processes; returns their mount points. Root only (else nothing). */
    public static List<Path> sweep() {
        List<Path> swept = new ArrayList<>();
        if (!Box.ROOT) return swept;
        List<String> mounts;
        try {
            mounts = Files.readAllLines(Path.of("/proc/self/mounts"));
        } catch (IOException e) {
            return swept;
        }
        for (String line : mounts) {
            String[] f = line.split(" ");
            if (f.length < 3 || !f[0].startsWith("/dev/loop")) continue;
            Path image = backingFile(f[0].substring("/dev/".length()));
            if (image == null || !orphaned(ownerFile(image))) continue;
            Path mount = Path.of(unescape(f[1]));
            if (DiskVolume.run(List.of("umount", mount.toString())) != null) DiskVolume.run(List.of("umount", "-l", mount.toString()));
            try {
                Files.deleteIfExists(image);
                Files.deleteIfExists(ownerFile(image));
            } catch (IOException e) {
                // gone meanwhile
            }
            swept.add(mount);
        }
        return swept;
    }

    /** True when {@code owner} is one of ours and names a process that no longer runs. */
    static boolean orphaned(Path owner) {
        try {
            String[] f = Files.readString(owner, StandardCharsets.UTF_8).strip().split(" ");
            if (f.length != 3 || !f[0].equals(MAGIC)) return false;
            long pid = Long.parseLong(f[1]);
            return ProcessHandle.of(pid).map(p -> !startOf(p).equals(f[2])).orElse(true);
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static Path backingFile(String loop) {
        try {
            String s = Files.readString(Path.of("/sys/block", loop, "loop", "backing_file")).strip();
            if (s.endsWith(" (deleted)")) return null; // its image is gone already; the mount goes with its last user
            return s.startsWith("/") ? Path.of(s) : null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static String startOf(ProcessHandle p) {
        return p.info().startInstant().map(i -> Long.toString(i.toEpochMilli())).orElse("?");
    }

    /** /proc/self/mounts writes space, tab, newline and backslash as octal escapes. */
    static String unescape(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 3 < s.length() && s.substring(i + 1, i + 4).matches("[0-7]{3}")) {
                b.append((char) Integer.parseInt(s.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }
}
