package dev.crucible.snapshot.criu;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Pulls the meaningful error lines out of a CRIU log, e.g.
 * {@code (00.004) Error (criu/cr-restore.c:1480): Can't fork for 7: File exists}.
 * Known noise on these machines (RLIMIT_NOFILE) is dropped so the real cause is first.
 */
public final class CriuLog {

    private static final Pattern ERROR = Pattern.compile("^(?:\\(\\s*[\\d.]+\\)\\s*)?(?:\\d+:\\s*)?Error \\(([^)]*)\\):\\s*(.*)$");
    private static final List<String> HARMLESS = List.of("RLIMIT_NOFILE");

    private CriuLog() {
    }

    public static List<String> errors(Path log) {
        if (log == null || !Files.isRegularFile(log)) {
            return List.of();
        }
        try {
            return errors(Files.readAllLines(log, StandardCharsets.ISO_8859_1));
        } catch (IOException e) {
            return List.of();
        }
    }

    /** At most 5 error lines, first occurrences first, each as "message [source:line]". */
    public static List<String> errors(List<String> lines) {
        List<String> out = new ArrayList<>();
        for (String line : lines) {
            Matcher m = ERROR.matcher(line.trim());
            if (m.matches() && HARMLESS.stream().noneMatch(line::contains)) {
                String msg = m.group(2).trim() + " [" + m.group(1) + "]";
                if (!out.contains(msg)) {
                    out.add(msg);
                }
                if (out.size() == 5) {
                    break;
                }
            }
        }
        return out;
    }
}
