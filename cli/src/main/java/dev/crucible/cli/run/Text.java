package dev.crucible.cli.run;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** Shortening and tail-reading of text for terminal lines. */
final class Text {
    private Text() {}

    static String shorten(String s, int max) {
        String one = s.replace('\n', ' ').replace('\r', ' ');
        return one.length() <= max ? one : one.substring(0, max - 1) + "…";
    }

    /** The last non-blank line of a (growing) log file, reading at most its last 4 KiB. */
    static String lastLine(Path file) {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
            long len = f.length();
            int n = (int) Math.min(len, 4096);
            byte[] b = new byte[n];
            f.seek(len - n);
            f.readFully(b);
            String[] lines = new String(b, StandardCharsets.UTF_8).split("\n");
            for (int i = lines.length - 1; i >= 0; i--) if (!lines[i].isBlank()) return lines[i];
            return null;
        } catch (IOException e) {
            return null;
        }
    }

    /** 30s, 5m, 1h, 500ms: as --snapshot-every takes it. */
    static String duration(java.time.Duration d) {
        long ms = d.toMillis();
        if (ms % 3_600_000 == 0) return ms / 3_600_000 + "h";
        if (ms % 60_000 == 0) return ms / 60_000 + "m";
        if (ms % 1000 == 0) return ms / 1000 + "s";
        return ms + "ms";
    }
}
