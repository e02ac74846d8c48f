package dev.crucible.verifier.pristine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Which Python sources of a grading tree differ from the task's tree (the tree the agent was given: the initial copy
 * taken at the first reset, or a post-hoc grading's pristine source), and the task's text of each changed one. The
 * in-process reporter takes a grader file a running test handed over (flask's {@code config.from_pyfile(__file__)})
 * as the test's own request only where the code its text reaches is the task's own (blind round 15, x01 and x11: a
 * loader the agent rewrote scraped the handed test's expected values); see {@code reporter_handover.py}.
 */
public final class TaskSources {
    /** A task source larger than this is not sent: the reporter then takes every function of it as changed. */
    static final long MAX_TEXT = 1 << 20;
    /** The most task text sent in all (the reporter's configuration is read at each grading run's start). */
    static final long MAX_TOTAL = 16L << 20;
    /** The most Python files compared; a tree past it is judged on the first ones walked and the rest taken as added. */
    static final int MAX_FILES = 50_000;

    /**
     * {@code changed}: relative path → the task's text of a source the agent changed; {@code added}: sources the task's
     * tree does not have as such (new files, links, files too large to send). Files of neither are the task's own.
     */
    public record Changes(Map<String, String> changed, Set<String> added) {
        public Changes {
            changed = Collections.unmodifiableMap(new TreeMap<>(changed));
            added = Collections.unmodifiableSet(new TreeSet<>(added));
        }

        public static Changes none() { return new Changes(Map.of(), Set.of()); }
    }

    private TaskSources() {}

    /**
     * Compares every {@code .py} file of {@code gradeRoot} that is not one of {@code graderFiles} (relative paths: tests,
     * pristine copies) with the same path under {@code taskRoot}. Both trees are the grader's (no agent process runs).
     * Null when there is no task tree to compare with.
     */
    public static Changes compare(Path taskRoot, Path gradeRoot, Set<String> graderFiles) {
        if (taskRoot == null) return null;
        Map<String, String> changed = new TreeMap<>();
        Set<String> added = new TreeSet<>();
        long[] total = {0};
        int[] seen = {0};
        WorkspaceWalker.walk(gradeRoot, (rel, attrs) -> {
            String r = rel.toString();
            if (!r.endsWith(".py") || graderFiles.contains(r)) return;
            if (++seen[0] > MAX_FILES) {
                added.add(r);
                return;
            }
            Path task = taskRoot.resolve(r);
            Path graded = gradeRoot.resolve(r);
            try {
                if (attrs.isSymbolicLink()) {
                    if (!Files.isSymbolicLink(task) || !Files.readSymbolicLink(task).equals(Files.readSymbolicLink(graded))) added.add(r);
                    return;
                }
                if (!Files.isRegularFile(task, LinkOption.NOFOLLOW_LINKS)) {
                    added.add(r);
                    return;
                }
                long size = Files.size(task);
                if (size == attrs.size() && Files.mismatch(task, graded) == -1) return;
                if (size > MAX_TEXT || total[0] + size > MAX_TOTAL) {
                    added.add(r);
                    return;
                }
                byte[] text = Files.readAllBytes(task);
                total[0] += text.length;
                changed.put(r, new String(text, java.nio.charset.StandardCharsets.UTF_8));
            } catch (IOException | RuntimeException e) {
                added.add(r); // unreadable here: judged as code the task does not hold
            }
        });
        return new Changes(changed, added);
    }
}
