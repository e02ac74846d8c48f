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
        String rootMarker = PROJECT_FILES.stream().filter(f -> Files.isRegularFile(ws.resolve(f))).findFirst().orElse(null);
        List<String> changed = new ArrayList<>();
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
                        String marker = p.startsWith(ws) ? marker(ws, p, rootMarker) : null;
                        if (marker != null) {
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
            changed.addAll(relocateFinders(site, ws, rootMarker));
        }
        return changed;
    }

    /**
     * What tells the tree's root from the folders above it: the root's project file, or where the root has none (a
     * monorepo: microsoft/markitdown's packages/markitdown/pyproject.toml) the nearest project file above {@code p},
     * as a path from the root. Null when there is none.
     */
    static String marker(Path ws, Path p, String rootMarker) {
        if (rootMarker != null) return rootMarker;
        for (Path d = p; d != null && d.startsWith(ws); d = d.getParent()) {
            for (String f : PROJECT_FILES) {
                if (Files.isRegularFile(d.resolve(f))) return ws.relativize(d.resolve(f)).toString();
            }
        }
        return null;
    }

    private static final java.util.regex.Pattern MAPPING = java.util.regex.Pattern.compile("(?m)^MAPPING(?:\\s*:[^=\\n]*)?\\s*=\\s*\\{.*\\}\\s*$");
    private static final java.util.regex.Pattern QUOTED = java.util.regex.Pattern.compile("'((?:[^'\\\\]|\\\\.)*)'");

    /**
     * setuptools' other editable form (a flat layout with listed packages): a {@code __editable___NAME_finder.py}
     * import hook whose {@code MAPPING} names each package's folder in the setup workspace. Each such folder
     * becomes a call that finds it in the tree the interpreter runs in (as {@link #importLine}), falling back
     * to the recorded path.
     */
    private static List<String> relocateFinders(Path site, Path ws, String rootMarker) throws IOException {
        List<String> changed = new ArrayList<>();
        List<Path> finders;
        try (Stream<Path> s = Files.list(site)) {
            finders = s.filter(p -> p.getFileName().toString().startsWith("__editable__") && p.getFileName().toString().endsWith("_finder.py")
                    && Files.isRegularFile(p)).toList();
        }
        for (Path f : finders) {
            String src = Files.readString(f, StandardCharsets.UTF_8);
            java.util.regex.Matcher m = MAPPING.matcher(src);
            if (!m.find()) continue;
            String line = m.group();
            StringBuilder rewritten = new StringBuilder();
            java.util.Set<String> markers = new java.util.LinkedHashSet<>();
            List<String> these = new ArrayList<>();
            java.util.regex.Matcher q = QUOTED.matcher(line);
            boolean any = false;
            while (q.find()) {
                String value = q.group(1);
                String replacement = q.group();
                String marker = value.startsWith("/") && Path.of(value).normalize().startsWith(ws) ? marker(ws, Path.of(value).normalize(), rootMarker) : null;
                if (marker != null && !Path.of(value).normalize().equals(ws)) {
                    markers.add(marker);
                    String rel = ws.relativize(Path.of(value).normalize()).toString();
                    replacement = "_crucible_tree(" + pyString(rel) + ", " + pyString(value) + ")";
                    these.add(f.getFileName() + ": " + value + " → <tree>/" + rel);
                    any = true;
                }
                q.appendReplacement(rewritten, java.util.regex.Matcher.quoteReplacement(replacement));
            }
            if (!any || markers.size() != 1) continue; // one project's packages (a finder is one install's)
            String marker = markers.iterator().next();
            changed.addAll(these);
            q.appendTail(rewritten);
            String helper = "def _crucible_tree(rel, recorded):\n"
                    + "    import os\n"
                    + "    d = os.getcwd()\n"
                    + "    while True:\n"
                    + "        p = os.path.join(d, rel)\n"
                    + "        if os.path.isdir(p) and os.path.isfile(os.path.join(d, " + pyString(marker) + ")):\n"
                    + "            return p\n"
                    + "        if os.path.dirname(d) == d:\n"
                    + "            return recorded\n"
                    + "        d = os.path.dirname(d)\n\n\n";
            Files.writeString(f, src.substring(0, m.start()) + helper + rewritten + src.substring(m.end()), StandardCharsets.UTF_8);
        }
        return changed;
    }

    /**
     * Whether {@code sites} hold an install made tree-relative by {@link #relocate}. Such an install is resolved
     * from the interpreter's working directory when it starts, so an interpreter started before its tree
     * exists (early grading) would not find the package.
     */
    static boolean anyTreeRelative(List<Path> sites) {
        for (Path site : sites) {
            if (!Files.isDirectory(site)) continue;
            try (Stream<Path> s = Files.list(site)) {
                for (Path f : (Iterable<Path>) s::iterator) {
                    String n = f.getFileName().toString();
                    if (!Files.isRegularFile(f) || !(n.endsWith(".pth") || n.startsWith("__editable__") && n.endsWith("_finder.py"))) continue;
                    String text = Files.readString(f, StandardCharsets.UTF_8);
                    if (text.contains("d = os.getcwd()") || text.contains("_crucible_tree(")) return true;
                }
            } catch (IOException e) {
                return true; // unknown: the cautious answer (grading then starts its interpreter after the tree)
            }
        }
        return false;
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
