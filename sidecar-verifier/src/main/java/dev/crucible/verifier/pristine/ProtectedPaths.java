package dev.crucible.verifier.pristine;

import dev.crucible.verifier.config.VerifierSpec;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Which workspace files the grade depends on. Besides the environment's globs, test configuration
 * is always protected (pytest reads it, so an edited pytest.ini or conftest.py changes the verdict)
 * and so are the files that hold the listed FAIL_TO_PASS / PASS_TO_PASS tests.
 */
public final class ProtectedPaths {
    /** Files that configure pytest or the interpreter wherever they are. */
    public static final List<String> TEST_CONFIG = List.of(
            "**/conftest.py", "conftest.py", "pytest.ini", ".pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml");
    /** Files that run code at interpreter start-up; never legitimate in a graded tree unless pristine. */
    public static final List<String> STARTUP_HOOKS = List.of(
            "**/sitecustomize.py", "sitecustomize.py", "**/usercustomize.py", "usercustomize.py", "**/*.pth", "*.pth");

    private final List<String> globs;
    private final List<PathMatcher> matchers = new ArrayList<>();
    private final List<PathMatcher> hooks = new ArrayList<>();

    public ProtectedPaths(List<String> globs) {
        this.globs = List.copyOf(globs);
        for (String g : this.globs) matchers.add(FileSystems.getDefault().getPathMatcher("glob:" + g));
        for (String g : STARTUP_HOOKS) hooks.add(FileSystems.getDefault().getPathMatcher("glob:" + g));
    }

    public static ProtectedPaths of(VerifierSpec v) {
        Set<String> all = new LinkedHashSet<>(TEST_CONFIG);
        collect(v, all);
        return new ProtectedPaths(new ArrayList<>(all));
    }

    private static void collect(VerifierSpec v, Set<String> into) {
        into.addAll(v.protectedPaths());
        for (String id : v.failToPass()) into.add(testFile(id));
        for (String id : v.passToPass()) into.add(testFile(id));
        if (v.reportPath() != null && !v.reportPath().startsWith("/")) into.add(v.reportPath());
        if (v.bidirectional() != null) into.addAll(v.bidirectional().groundTruthTests());
        v.components().forEach(c -> { if (c.verifier() != null) collect(c.verifier(), into); });
    }

    static String testFile(String testId) {
        int i = testId.indexOf("::");
        return i < 0 ? testId : testId.substring(0, i);
    }

    public boolean isProtected(Path rel) {
        for (PathMatcher m : matchers) if (m.matches(rel)) return true;
        return false;
    }

    public boolean isStartupHook(Path rel) {
        for (PathMatcher m : hooks) if (m.matches(rel)) return true;
        return false;
    }

    public List<String> globs() { return globs; }
}
