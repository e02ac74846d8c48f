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
    /** One grader file: its hash in the grading tree, and whether it is a test (source or data). */
    public record Entry(String sha256, boolean test) {}

    private static final Pattern PATCH_TARGET = Pattern.compile("^\\+\\+\\+ (?:b/)?(\\S+)", Pattern.MULTILINE);

    private GraderFiles() {}

    public static Map<String, Entry> of(Path root, Collection<String> pristine, Path hiddenDir, Path hiddenPatch) {
        Map<String, Entry> out = new TreeMap<>();
        for (String rel : pristine) add(out, root, rel, isTestPath(rel));
        if (hiddenDir != null && Files.isDirectory(hiddenDir)) {
            WorkspaceWalker.walk(hiddenDir, (rel, attrs) -> add(out, root, rel.toString(), true));
        }
        if (hiddenPatch != null && Files.isRegularFile(hiddenPatch)) {
            try {
                Matcher m = PATCH_TARGET.matcher(Files.readString(hiddenPatch));
                while (m.find()) if (!m.group(1).equals("/dev/null")) add(out, root, m.group(1), true);
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

    private static void add(Map<String, Entry> out, Path root, String rel, boolean test) {
        Path f = root.resolve(rel).normalize();
        if (!f.startsWith(root) || !Files.isRegularFile(f)) return;
        out.put(rel, new Entry(FileHashes.sha256(f), test || out.getOrDefault(rel, new Entry(null, false)).test()));
    }
}
