package dev.crucible.verifier.monitor;

import dev.crucible.contract.DetectorNames;

import dev.crucible.files.BoundedRead;
import dev.crucible.files.FileRefusal;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * .pth files and sitecustomize/usercustomize in the interpreter's site directories run at every start-up.
 * A site directory may not exist at reset (a user site the agent creates later), and the folders above it
 * may be the agent's (its home): each is therefore listed from the nearest folder that existed at reset
 * (its real path then is trusted), through {@link BoundedRead}, so a site directory that became a link
 * leading elsewhere, a FIFO or a device is refused and reported instead of listed, and a listing can
 * neither block nor follow a link. Only names and lstat times are read, never contents.
 */
final class SiteDirWatch {
    static final int MAX_ENTRIES = 100_000;

    /** A site directory as {@code rel} under {@code anchor}, the real path of its deepest ancestor that existed at reset. */
    private static final class Site {
        final Path configured;
        final String rel;
        BoundedRead anchor;

        Site(Path configured, BoundedRead anchor, String rel) {
            this.configured = configured;
            this.anchor = anchor;
            this.rel = rel;
        }

        /**
         * The reader for the anchor now: the same, or a new one when a real folder was put at the anchor's
         * real path (a venv made anew); a link or special file there is refused as such.
         */
        BoundedRead current() throws IOException {
            Path a = anchor.root();
            BasicFileAttributes now = Files.readAttributes(a, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (now.isDirectory() && !java.util.Objects.equals(now.fileKey(), anchor.rootKey()) && a.toRealPath().equals(a)) {
                anchor = BoundedRead.of(a, "site directory's folder");
            }
            return anchor;
        }
    }

    private final List<Path> dirs;
    private final List<Site> sites = new ArrayList<>();
    private final Map<Path, Long> baseline = new HashMap<>();

    SiteDirWatch(List<Path> dirs) { this.dirs = dirs; }

    void baseline() {
        for (Path d : dirs) {
            Site s = anchor(d);
            if (s != null) sites.add(s);
        }
        baseline.putAll(hooks(null));
    }

    void check(Consumer<WorkspaceScanner.Raw> out) {
        for (var e : hooks(out).entrySet()) {
            Long before = baseline.get(e.getKey());
            if (before == null || !before.equals(e.getValue())) {
                out.accept(new WorkspaceScanner.Raw(DetectorNames.STARTUP_HOOK, "critical", e.getKey().toString(),
                        (before == null ? "added" : "changed") + " start-up hook in the interpreter's site directory"));
                baseline.put(e.getKey(), e.getValue());
            }
        }
    }

    private static Site anchor(Path configured) {
        Path d = configured.toAbsolutePath().normalize();
        Path a = d;
        while (a != null && !Files.isDirectory(a)) a = a.getParent();
        if (a == null) return null;
        try {
            BoundedRead r = BoundedRead.of(a, "site directory's folder");
            return new Site(configured, r, a.relativize(d).toString());
        } catch (IOException e) {
            return null;
        }
    }

    private Map<Path, Long> hooks(Consumer<WorkspaceScanner.Raw> out) {
        Map<Path, Long> m = new HashMap<>();
        for (Site s : sites) {
            Map<String, BasicFileAttributes> entries;
            try {
                entries = s.current().list(s.rel, MAX_ENTRIES);
            } catch (FileRefusal f) {
                if (out != null && f.hostile()) {
                    out.accept(new WorkspaceScanner.Raw(DetectorNames.STARTUP_HOOK, "critical", s.configured.toString(), "the site directory is "
                            + f.kind().words() + "; not listed (the monitor follows no link out of the folder it had at reset and opens no FIFO or device)",
                            GitWatch.HOSTILE));
                }
                continue;
            } catch (IOException | RuntimeException e) {
                continue; // the directory does not exist (yet): a user site created later is picked up next time
            }
            if (entries == null) continue;
            for (var e : entries.entrySet()) {
                String n = e.getKey();
                if (n.endsWith(".pth") || n.equals("sitecustomize.py") || n.equals("usercustomize.py")) {
                    m.put(s.configured.resolve(n), e.getValue().lastModifiedTime().toMillis());
                }
            }
        }
        return m;
    }
}
