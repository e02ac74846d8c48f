package dev.crucible.verifier.grade;

import dev.crucible.verifier.pristine.FileHashes;
import dev.crucible.verifier.pristine.WorkspaceWalker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The files of a grading tree that are the grader's, not the agent's: the pristine protected copies
 * and the hidden tests (files the hidden patch touched included), with their SHA-256 as they are in
 * the tree and whether each is a test. The in-process reporter trusts hooks only from these files
 * and reports code under test that reads the test ones.
 */
public final class GraderFiles {
    /**
     * One grader file: its hash in the grading tree, whether it is a test (source or data), and whether its bytes are
     * hidden from the agent (a hidden test's file whose content is not what the agent's tree showed at that path): only
     * a read of hidden bytes can tell the code under test what the grader expects (blind round 8, h03 / x09).
     */
    public record Entry(String sha256, boolean test, boolean hidden) {
        public Entry(String sha256, boolean test) { this(sha256, test, false); }
    }

    private static final Pattern PATCH_TARGET = Pattern.compile("^\\+\\+\\+ (?:b/)?(\\S+)", Pattern.MULTILINE);

    private GraderFiles() {}

    public static Map<String, Entry> of(Path root, Collection<String> pristine, Path hiddenDir, Path hiddenPatch) {
        return of(root, pristine.stream().collect(java.util.stream.Collectors.toMap(r -> r, r -> "", (a, b) -> a)), hiddenDir, hiddenPatch);
    }

    /** {@code pristine}: the protected files' pristine hashes (what the agent saw), by relative path. */
    public static Map<String, Entry> of(Path root, Map<String, String> pristine, Path hiddenDir, Path hiddenPatch) {
        Map<String, Entry> out = new TreeMap<>();
        for (String rel : pristine.keySet()) add(out, root, rel, isTestPath(rel), null);
        if (hiddenDir != null && Files.isDirectory(hiddenDir)) {
            WorkspaceWalker.walk(hiddenDir, (rel, attrs) -> add(out, root, rel.toString(), true, pristine));
        }
        if (hiddenPatch != null && Files.isRegularFile(hiddenPatch)) {
            try {
                Matcher m = PATCH_TARGET.matcher(Files.readString(hiddenPatch));
                while (m.find()) if (!m.group(1).equals("/dev/null")) add(out, root, m.group(1), true, pristine);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return out;
    }

    /** Test sources and their data: test_*.py, *_test.py, conftest.py, anything under a test(s)/testing folder. */
    static boolean isTestPath(String rel) {
        String name = rel.substring(rel.lastIndexOf('/') + 1);
        if (name.equals("conftest.py") || (name.startsWith("test_") && name.endsWith(".py")) || name.endsWith("_test.py")) return true;
        for (String part : rel.split("/")) if (part.equals("tests") || part.equals("test") || part.equals("testing")) return true;
        return false;
    }

    /** {@code pristine}: null for a pristine file; for a hidden one, what the agent saw (its bytes are hidden unless the same). */
    private static void add(Map<String, Entry> out, Path root, String rel, boolean test, Map<String, String> pristine) {
        Path f = root.resolve(rel).normalize();
        if (!f.startsWith(root) || !Files.isRegularFile(f)) return;
        String sha = FileHashes.sha256(f);
        Entry was = out.getOrDefault(rel, new Entry(null, false));
        boolean hidden = pristine != null && !sha.equals(pristine.get(rel));
        out.put(rel, new Entry(sha, test || was.test(), hidden || was.hidden()));
    }
}
