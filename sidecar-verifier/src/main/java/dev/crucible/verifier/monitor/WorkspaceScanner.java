package dev.crucible.verifier.monitor;

import dev.crucible.verifier.pristine.FileHashes;
import dev.crucible.verifier.pristine.PristineSnapshot;
import dev.crucible.verifier.pristine.ProtectedPaths;
import dev.crucible.verifier.pristine.WorkspaceWalker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Periodic scan of the workspace. Size and mtime pick out changed files, so only those are read:
 * a quiet workspace costs one directory walk per scan. Python sources are checked against
 * {@link SourceRules} relative to their state at reset.
 */
final class WorkspaceScanner {
    private static final long MAX_SOURCE_BYTES = 2 * 1024 * 1024;
    private static final Set<String> GRADER_MODULES = Set.of("pytest", "_pytest", "pluggy", "py", "conftest", "iniconfig", "sitecustomize", "usercustomize");

    private record Seen(long size, long mtime, Map<String, Integer> counts) {}

    private final Path ws;
    private final PristineSnapshot pristine;
    private final ProtectedPaths pp;
    private final Set<String> stdlib;
    private final Map<String, Seen> seen = new HashMap<>();
    private final Set<String> baseline = new HashSet<>();
    private final GitWatch git;

    private final Path baselineRoot;

    WorkspaceScanner(Path ws, Path baselineRoot, PristineSnapshot pristine, Set<String> stdlib) {
        this.ws = ws;
        this.baselineRoot = baselineRoot == null ? ws : baselineRoot;
        this.pristine = pristine;
        this.pp = pristine.protectedPaths();
        this.stdlib = stdlib;
        this.git = new GitWatch(ws.resolve(".git"), this.baselineRoot.resolve(".git"));
    }

    /** Records the state at reset: nothing in it is a finding. */
    void baseline() {
        // A separate baseline tree (post-hoc grading) has other mtimes: mark every file as unseen (-1)
        // so the first scan reads them all and compares with the baseline's rule counts.
        boolean sameTree = baselineRoot.equals(ws);
        WorkspaceWalker.walk(baselineRoot, (rel, attrs) -> {
            String r = rel.toString();
            baseline.add(r);
            seen.put(r, new Seen(attrs.size(), sameTree ? attrs.lastModifiedTime().toMillis() : -1,
                    r.endsWith(".py") ? counts(baselineRoot.resolve(r)) : Map.of()));
        });
        git.baseline();
    }

    void scan(Consumer<Raw> out) {
        Set<String> present = new HashSet<>();
        WorkspaceWalker.walk(ws, (rel, attrs) -> {
            String r = rel.toString();
            present.add(r);
            Seen before = seen.get(r);
            long mtime = attrs.lastModifiedTime().toMillis();
            if (before != null && before.size() == attrs.size() && before.mtime() == mtime) return;
            Map<String, Integer> counts = before == null ? Map.of() : before.counts();
            Map<String, Integer> now = counts;
            if (r.endsWith(".py") && attrs.isRegularFile() && attrs.size() <= MAX_SOURCE_BYTES) {
                String src = read(ws.resolve(r));
                if (src != null) {
                    for (SourceRules.Hit h : SourceRules.newHits(counts, src)) out.accept(new Raw(h.detector(), h.severity(), r, h.evidence()));
                    now = SourceRules.counts(src);
                }
            }
            changed(rel, before == null && !baseline.contains(r), out);
            seen.put(r, new Seen(attrs.size(), mtime, now));
        });
        for (String r : Set.copyOf(seen.keySet())) {
            if (!present.contains(r)) {
                seen.remove(r);
                if (pp.isProtected(Path.of(r))) out.accept(new Raw(Detectors.PROTECTED_PATH, "critical", r, "protected file deleted"));
            }
        }
        git.check(out);
    }

    private void changed(Path rel, boolean added, Consumer<Raw> out) {
        String r = rel.toString();
        String name = rel.getFileName().toString();
        if (pp.isProtected(rel)) {
            boolean same = pristine.contains(r) && Files.isRegularFile(ws.resolve(r), LinkOption.NOFOLLOW_LINKS)
                    && FileHashes.sha256(ws.resolve(r)).equals(pristine.hashes().get(r));
            if (!same) out.accept(new Raw(Detectors.PROTECTED_PATH, "critical", r, pristine.contains(r) ? "protected file modified" : "protected file added"));
        }
        if (pp.isStartupHook(rel) || (name.equals("conftest.py") && !pristine.contains(r))) {
            out.accept(new Raw(Detectors.STARTUP_HOOK, "critical", r, (added ? "added " : "changed ") + name + " runs at interpreter or pytest start-up"));
        }
        if (added && shadows(rel)) {
            out.accept(new Raw(Detectors.MODULE_SHADOWING, "high", r, "module '" + moduleName(rel) + "' shadows the standard library or the test runner"));
        }
    }

    /** A new top-level module or package named like a stdlib or test-runner module is imported instead of it. */
    private boolean shadows(Path rel) {
        String mod = moduleName(rel);
        return mod != null && (stdlib.contains(mod) || GRADER_MODULES.contains(mod)) && !mod.equals("conftest")
                && !mod.equals("sitecustomize") && !mod.equals("usercustomize");
    }

    private static String moduleName(Path rel) {
        if (rel.getNameCount() == 1 && rel.toString().endsWith(".py")) return rel.toString().substring(0, rel.toString().length() - 3);
        if (rel.getNameCount() == 2 && rel.getFileName().toString().equals("__init__.py")) return rel.getName(0).toString();
        return null;
    }

    private static Map<String, Integer> counts(Path f) {
        String s = read(f);
        return s == null ? Map.of() : SourceRules.counts(s);
    }

    private static String read(Path f) {
        try {
            return Files.readString(f);
        } catch (IOException | RuntimeException e) {
            return null; // binary or vanished
        }
    }

    /** A detector hit before the monitor stamps it with time, step and action. */
    record Raw(String detector, String severity, String path, String evidence) {}
}
