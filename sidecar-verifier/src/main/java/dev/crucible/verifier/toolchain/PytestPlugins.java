package dev.crucible.verifier.toolchain;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * The pytest11 entry points installed in site folders, read from the distributions' own
 * {@code entry_points.txt} (no Python runs, so nothing planted there can execute while we look).
 * Each is "name=module" as pytest's plugin autoload would load it.
 */
public final class PytestPlugins {
    private PytestPlugins() {}

    public static List<String> in(List<Path> siteDirs) {
        TreeSet<String> out = new TreeSet<>();
        for (Path site : siteDirs) {
            if (!Files.isDirectory(site)) continue;
            try (Stream<Path> s = Files.list(site)) {
                for (Path d : s.toList()) {
                    String n = d.getFileName().toString();
                    if (!n.endsWith(".dist-info") && !n.endsWith(".egg-info")) continue;
                    Path ep = d.resolve("entry_points.txt");
                    if (Files.isRegularFile(ep)) out.addAll(parse(Files.readAllLines(ep)));
                }
            } catch (IOException e) {
                out.add("unreadable=" + site);
            }
        }
        return List.copyOf(out);
    }

    static List<String> parse(List<String> lines) {
        TreeSet<String> out = new TreeSet<>();
        boolean in = false;
        for (String raw : lines) {
            String l = raw.strip();
            if (l.startsWith("[")) {
                in = l.equals("[pytest11]");
                continue;
            }
            int eq = l.indexOf('=');
            if (!in || l.isEmpty() || l.startsWith("#") || l.startsWith(";") || eq < 0) continue;
            String module = l.substring(eq + 1).strip().replaceFirst("\\s*\\[.*$", "");
            out.add(l.substring(0, eq).strip() + "=" + module.replaceFirst(":.*$", ""));
        }
        return List.copyOf(out);
    }
}
