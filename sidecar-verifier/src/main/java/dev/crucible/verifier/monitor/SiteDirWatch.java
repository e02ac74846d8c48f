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
 * neither block nor follow a link. Only names and lstat times are read, never contents. A folder whose own lstat and whose
 * hooks' lstats are as at its last listing is not listed again ({@link #stamps(Site)}): a site-packages of hundreds of
 * entries cost a listing on a worker thread at every step, most of the check's time under load.
 */
final class SiteDirWatch {
    static final int MAX_ENTRIES = 100_000;

    /** A site directory as {@code rel} under {@code anchor}, the real path of its deepest ancestor that existed at reset. */
    private static final class Site {
        final Path configured;
        final String rel;
        BoundedRead anchor;
        /** The folder's and its hooks' lstat stamps at the last listing, and the hooks that listing found (null: list). */
        List<Object> stamps;
        Map<Path, Long> hooks;

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
            List<Object> stamps = stamps(s);
            if (stamps != null && stamps.equals(s.stamps)) { // nothing added, removed, renamed or written there since
                m.putAll(s.hooks);
                continue;
            }
            s.stamps = null;
            Map<Path, Long> found = new HashMap<>();
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
                    found.put(s.configured.resolve(n), e.getValue().lastModifiedTime().toMillis());
                }
            }
            m.putAll(found);
            s.hooks = found;
            // the folder's stamp is from before the listing: an entry added during it shows at the next check
            if (stamps != null) s.stamps = stamps(s, found, stamps);
        }
        return m;
    }

    /**
     * The site folder's lstat (inode, mtime, ctime; never opened, links not followed) and each hook's it had at the last
     * listing; null when it cannot be had (absent, not a folder). A file added, removed or renamed there moves the folder's
     * times; a hook rewritten in place moves its own ctime, which no one can set. A folder swapped for a link or another
     * folder has another inode. Any of these: listed again through the contained reader, which refuses what it must.
     */
    private static List<Object> stamps(Site s) {
        List<Object> st = stamp(s.anchor.root().resolve(s.rel), true);
        if (st == null || s.hooks == null) return st;
        for (Path h : s.hooks.keySet()) st.addAll(stampOrGone(s.anchor.root().resolve(s.rel).resolve(h.getFileName())));
        return st;
    }

    /**
     * As {@link #stamps(Site)} for the hooks just listed, with the folder's stamp taken before the listing; null (list again
     * next time) when a hook's mtime moved since the listing read it.
     */
    private static List<Object> stamps(Site s, Map<Path, Long> hooks, List<Object> before) {
        List<Object> st = new ArrayList<>(before.subList(0, 3));
        for (var h : hooks.entrySet()) {
            List<Object> hs = stampOrGone(s.anchor.root().resolve(s.rel).resolve(h.getKey().getFileName()));
            if (!(hs.get(1) instanceof java.nio.file.attribute.FileTime t) || t.toMillis() != h.getValue()) return null;
            st.addAll(hs);
        }
        return st;
    }

    private static List<Object> stampOrGone(Path p) {
        List<Object> st = stamp(p, false);
        return st != null ? st : List.of("gone", "gone", "gone");
    }

    private static List<Object> stamp(Path p, boolean folder) {
        try {
            Map<String, Object> a = Files.readAttributes(p, "unix:fileKey,lastModifiedTime,ctime,isDirectory", LinkOption.NOFOLLOW_LINKS);
            if (folder && !Boolean.TRUE.equals(a.get("isDirectory"))) return null;
            return new ArrayList<>(List.of(String.valueOf(a.get("fileKey")), a.get("lastModifiedTime"), a.get("ctime")));
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
