package dev.crucible.verifier.monitor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/** .pth files and sitecustomize/usercustomize in the interpreter's site directories run at every start-up. */
final class SiteDirWatch {
    private final List<Path> dirs;
    private final Map<Path, Long> baseline = new HashMap<>();

    SiteDirWatch(List<Path> dirs) { this.dirs = dirs; }

    void baseline() { baseline.putAll(hooks()); }

    void check(Consumer<WorkspaceScanner.Raw> out) {
        for (var e : hooks().entrySet()) {
            Long before = baseline.get(e.getKey());
            if (before == null || !before.equals(e.getValue())) {
                out.accept(new WorkspaceScanner.Raw(Detectors.STARTUP_HOOK, "critical", e.getKey().toString(),
                        (before == null ? "added" : "changed") + " start-up hook in the interpreter's site directory"));
                baseline.put(e.getKey(), e.getValue());
            }
        }
    }

    private Map<Path, Long> hooks() {
        Map<Path, Long> m = new HashMap<>();
        for (Path d : dirs) {
            try (var s = Files.list(d)) {
                s.filter(p -> {
                    String n = p.getFileName().toString();
                    return n.endsWith(".pth") || n.equals("sitecustomize.py") || n.equals("usercustomize.py");
                }).forEach(p -> {
                    try {
                        m.put(p, Files.getLastModifiedTime(p).toMillis());
                    } catch (IOException ignored) {
                        // vanished
                    }
                });
            } catch (IOException ignored) {
                // the directory does not exist (yet): a user site created later is picked up next time
            }
        }
        return m;
    }
}
