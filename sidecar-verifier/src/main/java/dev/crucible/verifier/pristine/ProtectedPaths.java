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
 * Which workspace files the grade depends on. Besides the environment's globs, conftest.py files are
 * always protected (pytest runs them), test configuration is by default (pytest reads it, so an edited
 * pytest.ini changes the verdict), and so are the files that hold the listed FAIL_TO_PASS /
 * PASS_TO_PASS tests. pyproject.toml, setup.cfg and tox.ini, protected by default, are judged by their
 * test-runner sections only ({@link #judgedBySections}): an agent may add a dependency, not change
 * [tool.pytest.ini_options]. Grading still takes them from the pristine copy. pytest 9's pytest.toml and
 * .pytest.toml are test configuration like pytest.ini (blind round 12, x24). The files the verifier command itself
 * runs ({@link CommandFiles}: a Makefile, a wrapper script) are graded from the pristine copy too, yet stay the
 * agent's to edit ({@link #runsFromPristine}).
 */
public final class ProtectedPaths {
    /** Code pytest runs wherever it is: protected whatever the hack policy says. */
    public static final List<String> CONFTEST = List.of("**/conftest.py", "conftest.py");
    /** Files that configure pytest, protected unless {@code hackPolicy.protectedDefaults: false}. */
    public static final List<String> TEST_CONFIG_FILES = List.of("pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml");
    /** Default-protected files judged by their test-runner sections (an explicit glob protects them whole). */
    public static final List<String> SECTION_JUDGED = List.of("pyproject.toml", "setup.cfg", "tox.ini");
    /** Files that run code at interpreter start-up; never legitimate in a graded tree unless pristine. */
    public static final List<String> STARTUP_HOOKS = List.of(
            "**/sitecustomize.py", "sitecustomize.py", "**/usercustomize.py", "usercustomize.py", "**/*.pth", "*.pth");

    private final List<String> globs;
    private final List<PathMatcher> matchers = new ArrayList<>();
    private final List<PathMatcher> hooks = new ArrayList<>();
    private final List<PathMatcher> explicit = new ArrayList<>();
    private final Set<String> commandFiles;
    private final boolean sectionsByDefault;

    /** Every glob protects whole files. */
    public ProtectedPaths(List<String> globs) { this(globs, List.of(), false, Set.of()); }

    private ProtectedPaths(List<String> globs, List<String> explicitGlobs, boolean sectionsByDefault, Set<String> commandFiles) {
        this.globs = List.copyOf(globs);
        this.commandFiles = Set.copyOf(commandFiles);
        this.sectionsByDefault = sectionsByDefault;
        for (String g : this.globs) matchers.add(FileSystems.getDefault().getPathMatcher("glob:" + g));
        for (String g : explicitGlobs) explicit.add(FileSystems.getDefault().getPathMatcher("glob:" + g));
        for (String g : STARTUP_HOOKS) hooks.add(FileSystems.getDefault().getPathMatcher("glob:" + g));
    }

    /** With the default test-config protection. */
    public static ProtectedPaths of(VerifierSpec v) { return of(v, true); }

    /** {@code defaults}: the hack policy's protectedDefaults (conftest.py stays protected either way). */
    public static ProtectedPaths of(VerifierSpec v, boolean defaults) { return of(v, defaults, null); }

    /**
     * {@code taskTree}: the tree at reset (null where unknown), which resolves the files a command's Makefile includes.
     * The files the verifier command runs ({@link CommandFiles}) are graded from the pristine copy whatever the policy
     * says: a wrapper the agent rewrote could skip the tests, drop the oracle or forge the result channel.
     */
    public static ProtectedPaths of(VerifierSpec v, boolean defaults, Path taskTree) {
        Set<String> envGlobs = new LinkedHashSet<>();
        collect(v, envGlobs);
        Set<String> all = new LinkedHashSet<>(CONFTEST);
        if (defaults) all.addAll(TEST_CONFIG_FILES);
        all.addAll(envGlobs);
        Set<String> commands = new LinkedHashSet<>();
        commandFiles(v, taskTree, commands);
        // a file protected otherwise (a test file, tox.ini's sections, an environment glob) keeps that protection whole
        ProtectedPaths others = new ProtectedPaths(new ArrayList<>(all), List.of(), false, Set.of());
        commands.removeIf(c -> others.isProtected(Path.of(c)));
        for (String c : commands) all.add(glob(c));
        return new ProtectedPaths(new ArrayList<>(all), new ArrayList<>(envGlobs), defaults, commands);
    }

    private static void commandFiles(VerifierSpec v, Path taskTree, Set<String> into) {
        into.addAll(CommandFiles.of(v.command(), taskTree));
        v.components().forEach(c -> { if (c.verifier() != null) commandFiles(c.verifier(), taskTree, into); });
    }

    /** A literal path as a glob (its metacharacters escaped). */
    private static String glob(String path) { return path.replaceAll("([\\\\*?\\[\\]{}])", "\\\\$1"); }

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

    /**
     * A top-level pyproject.toml, setup.cfg or tox.ini protected only by default: a change counts
     * only if its test-runner sections changed ([tool.pytest*], [tool.coverage*], [tool.tox],
     * pytest11 entry points; [tool:pytest], [coverage:*]; [pytest], [tox], [testenv*]).
     * The sandbox may leave these writable; grading takes them from the pristine copy regardless.
     */
    public boolean judgedBySections(Path rel) {
        if (!sectionsByDefault || rel.getNameCount() != 1 || !SECTION_JUDGED.contains(rel.toString())) return false;
        for (PathMatcher m : explicit) if (m.matches(rel)) return false;
        return true;
    }

    /**
     * Owned whole: a command that writes it is an attempt by itself (the monitor's command rule). A section-judged
     * configuration is not: `sed -i` bumping [project] version is honest (blind round 12, h17 floored to 0), and the
     * workspace scan judges what the write did to its test-runner sections. Nor is a file the verifier command runs
     * ({@link #runsFromPristine}): grading runs its pristine copy.
     */
    public boolean ownedWhole(Path rel) { return isProtected(rel) && !judgedBySections(rel) && !runsFromPristine(rel); }

    /**
     * A file the verifier command runs (a Makefile, a wrapper script): grading takes the pristine copy, the agent may
     * still edit it (no read-only bind, no protected-path finding: the monitor records the change as info).
     */
    public boolean runsFromPristine(Path rel) { return commandFiles.contains(rel.toString()); }

    public boolean isStartupHook(Path rel) {
        for (PathMatcher m : hooks) if (m.matches(rel)) return true;
        return false;
    }

    public List<String> globs() { return globs; }
}
