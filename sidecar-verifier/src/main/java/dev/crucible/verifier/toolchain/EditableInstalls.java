package dev.crucible.verifier.toolchain;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Editable installs ({@code pip install -e .}) made at setup point at the setup workspace by absolute
 * path ({@code __editable__.pkg.pth} holding {@code /…/workspace/src}). Other attempts and every
 * grading tree live elsewhere, so the package would not import there (cachetools: ModuleNotFoundError
 * at grading). Each such path line becomes an import line that finds the same folder in the tree the
 * interpreter runs in: the nearest folder at or above the working directory that holds the same
 * project file (pyproject.toml, setup.py or setup.cfg) and the same relative folder.
 */
final class EditableInstalls {
    private static final List<String> PROJECT_FILES = List.of("pyproject.toml", "setup.py", "setup.cfg");

    private EditableInstalls() {}

    /** Rewrites the site folders' .pth path lines under {@code workspace}; returns what changed ("file: old → rel"). */
    static List<String> relocate(List<Path> sites, Path workspace) throws IOException {
        Path ws = workspace.toAbsolutePath().normalize();
        String marker = PROJECT_FILES.stream().filter(f -> Files.isRegularFile(ws.resolve(f))).findFirst().orElse(null);
        List<String> changed = new ArrayList<>();
        if (marker == null) return changed;
        for (Path site : sites) {
            if (!Files.isDirectory(site)) continue;
            List<Path> pths;
            try (Stream<Path> s = Files.list(site)) {
                pths = s.filter(p -> p.getFileName().toString().endsWith(".pth") && Files.isRegularFile(p)).toList();
            }
            for (Path pth : pths) {
                List<String> out = new ArrayList<>();
                boolean any = false;
                for (String line : Files.readAllLines(pth, StandardCharsets.UTF_8)) {
                    String l = line.strip();
                    if (l.startsWith("/") && !l.startsWith("import")) {
                        Path p = Path.of(l).normalize();
                        if (p.startsWith(ws)) {
                            String rel = ws.relativize(p).toString();
                            out.add(importLine(rel, marker));
                            changed.add(pth.getFileName() + ": " + l + " → <tree>/" + rel);
                            any = true;
                            continue;
                        }
                    }
                    out.add(line);
                }
                if (any) Files.write(pth, out, StandardCharsets.UTF_8);
            }
        }
        return changed;
    }

    /** One .pth line (site runs lines starting with "import"): appends {@code <tree>/rel} to sys.path. */
    static String importLine(String rel, String marker) {
        return "import os, sys; exec(" + pyString(
                "d = os.getcwd()\n"
                + "while True:\n"
                + "    p = os.path.join(d, " + pyString(rel) + ")\n"
                + "    if os.path.isdir(p) and os.path.isfile(os.path.join(d, " + pyString(marker) + ")):\n"
                + "        p in sys.path or sys.path.append(p)\n"
                + "        break\n"
                + "    if os.path.dirname(d) == d:\n"
                + "        break\n"
                + "    d = os.path.dirname(d)\n") + ", {'os': os, 'sys': sys})";
    }

    private static String pyString(String s) {
        StringBuilder b = new StringBuilder("'");
        for (char c : s.toCharArray()) {
            if (c == '\\' || c == '\'') b.append('\\').append(c);
            else if (c == '\n') b.append("\\n");
            else b.append(c);
        }
        return b.append('\'').toString();
    }
}
