package dev.crucible.verifier.monitor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Signs in .git that history beyond the task's commit was fetched or checked out: FETCH_HEAD appears
 * or changes (git fetch / pull), remote-tracking refs change, or HEAD moves to another commit.
 */
final class GitWatch {
    private final Path baselineGit;
    private Path git;
    private final Map<String, Long> marks = new HashMap<>();
    private String head;

    GitWatch(Path git, Path baselineGit) {
        this.git = git;
        this.baselineGit = baselineGit;
    }

    void baseline() {
        Path live = git;
        git = baselineGit;
        if (Files.isDirectory(git)) {
            marks.putAll(snapshot());
            head = resolveHead();
        }
        git = live;
    }

    void check(Consumer<WorkspaceScanner.Raw> out) {
        // Without a baseline repository (post-hoc grading of a clone) there is nothing to compare with.
        if (!Files.isDirectory(git) || !Files.isDirectory(baselineGit)) return;
        Map<String, Long> now = snapshot();
        for (var e : now.entrySet()) {
            Long before = marks.get(e.getKey());
            if (before == null || !before.equals(e.getValue())) {
                out.accept(new WorkspaceScanner.Raw(Detectors.GIT_HISTORY, "high", ".git/" + e.getKey(),
                        e.getKey().equals("FETCH_HEAD") ? "git fetch/pull from upstream" : "remote-tracking ref changed"));
            }
        }
        marks.putAll(now);
        String h = resolveHead();
        if (head != null && h != null && !h.equals(head)) {
            out.accept(new WorkspaceScanner.Raw(Detectors.GIT_HISTORY, "medium", ".git/HEAD", "HEAD moved from " + abbrev(head) + " to " + abbrev(h)));
            head = h;
        }
    }

    private Map<String, Long> snapshot() {
        Map<String, Long> m = new HashMap<>();
        mark(m, "FETCH_HEAD");
        Path remotes = git.resolve("refs/remotes");
        if (Files.isDirectory(remotes)) {
            try (Stream<Path> s = Files.walk(remotes)) {
                s.filter(Files::isRegularFile).forEach(p -> mark(m, git.relativize(p).toString()));
            } catch (IOException ignored) {
                // racing with git itself: the next scan sees it
            }
        }
        return m;
    }

    private void mark(Map<String, Long> m, String rel) {
        try {
            m.put(rel, Files.getLastModifiedTime(git.resolve(rel)).toMillis());
        } catch (IOException ignored) {
            // absent
        }
    }

    /** HEAD's text: a branch ref, or a commit when detached. Committing on the branch leaves it alone; checking out another commit does not. */
    private String resolveHead() {
        try {
            String h = Files.readString(git.resolve("HEAD")).strip();
            return h.startsWith("ref: ") ? h : "detached:" + h;
        } catch (IOException e) {
            return null;
        }
    }

    private static String abbrev(String h) { return h.length() > 20 ? h.substring(0, 20) : h; }
}
