package dev.crucible.verifier.grade;

import dev.crucible.verifier.grade.result.IntegrityFinding;
import dev.crucible.verifier.exec.ExecRequest;
import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.grade.runner.TestCommand;
import dev.crucible.verifier.pristine.FileHashes;
import dev.crucible.verifier.pristine.ProtectedPaths;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What a graded command that was let write its grading tree did there. The grader's files are bound
 * read-only, so rewriting one in place fails; this check is for the ways around that: a folder renamed
 * away with its tests and a new one put in its place, and new files a runner or interpreter would load
 * as the grader's (a test source, a start-up hook, byte code). Each is a finding that voids the run, but
 * for JavaScript test files a compiler wrote into a build-output folder (tsc's dist/test/x.test.js: reported,
 * medium). Other build outputs (dist/, a plugin, generated sources outside test folders) are not findings.
 */
public final class TreeWrites {
    /** Test sources by name in every ecosystem the runners grade. */
    private static final Pattern TEST_NAME = Pattern.compile(
            "(test_.*\\.py|.*_test\\.py|conftest\\.py|.*_test\\.go|.*[.-](test|spec)\\.[cm]?[jt]sx?)");
    /** Sources a runner compiles or loads, judged as tests when they sit in a test folder. */
    private static final Pattern SOURCE = Pattern.compile(".*\\.(py|go|rs|[cm]?[jt]sx?|java|kt|groovy)");
    private static final Set<String> TEST_DIRS = Set.of("test", "tests", "testing", "__tests__", "testdata");
    private static final ProtectedPaths HOOKS = new ProtectedPaths(List.of());
    private static final Set<String> BUILD_OUTPUT = Set.of("dist", "build", "out", "lib");
    private static final Pattern COMPILED = Pattern.compile(".*\\.(c|m)?js");

    private TreeWrites() {}

    /** A graded command's result and what it did to its tree (empty when the tree was read-only). */
    public record Run(ExecResult result, List<IntegrityFinding> findings) {}

    /**
     * Whether a graded script may write its grading tree: any but one whose last command runs Python (pytest,
     * unittest, a script), whose byte code and test modules the code under test could then plant before they load.
     */
    public static boolean mayWrite(String script) {
        return TestCommand.parse(script).map(c -> !c.runsPython() && !c.program().equals("pytest")).orElse(false);
    }

    /** Runs {@code req}, with its tree writable but for the grader's files when {@code writable}, then checks the tree. */
    public static Run run(GradeContext ctx, ExecRequest req, boolean writable) {
        if (!writable) return new Run(ctx.executor().run(req, ctx.onStart()), List.of());
        Set<String> before = files(ctx.root());
        ExecResult r = ctx.executor().run(req.withWritableTree(ctx.graderFiles().keySet().stream().map(ctx.root()::resolve).toList()), ctx.onStart());
        return new Run(r, check(ctx.root(), ctx.graderFiles(), before));
    }

    /** The tree's regular files, relative; links are not followed, byte-code caches are walked. */
    public static Set<String> files(Path root) {
        try (Stream<Path> all = Files.walk(root)) {
            Set<String> out = new HashSet<>();
            all.filter(f -> Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)).forEach(f -> out.add(root.relativize(f).toString()));
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException("listing the grading tree " + root + ": " + e.getMessage(), e);
        }
    }

    /** Findings for what the command did to the grader's files and which loadable files it added ({@code before}: {@link #files}). */
    public static List<IntegrityFinding> check(Path root, Map<String, GraderFiles.Entry> graderFiles, Set<String> before) {
        List<IntegrityFinding> out = new ArrayList<>();
        graderFiles.forEach((rel, e) -> {
            Path f = root.resolve(rel);
            if (!Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) {
                out.add(IntegrityFinding.tampering("critical", rel, "the graded command removed or moved the grader's file " + rel));
            } else if (!FileHashes.sha256(f).equals(e.sha256())) {
                out.add(IntegrityFinding.tampering("critical", rel, "the graded command changed the grader's file " + rel));
            }
        });
        for (String rel : files(root)) {
            if (before.contains(rel) || graderFiles.containsKey(rel)) continue;
            String why = loadable(rel);
            if (why == null) continue;
            // tsc compiling the tests into dist/ before mocha runs them there is what such a build does: reported, not voiding
            String severity = compiledOutput(rel) ? "medium" : "high";
            out.add(IntegrityFinding.tampering(severity, rel, "the graded command wrote " + rel + " (" + why + ") into its grading tree"));
        }
        return out;
    }

    /** JavaScript a compiler wrote into a build-output folder at the tree's top (dist/, build/, out/, lib/). */
    static boolean compiledOutput(String rel) {
        Path p = Path.of(rel);
        return p.getNameCount() > 1 && BUILD_OUTPUT.contains(p.getName(0).toString()) && COMPILED.matcher(p.getFileName().toString()).matches();
    }

    /** Why a new file could change what grading runs, or null when it cannot. */
    static String loadable(String rel) {
        Path p = Path.of(rel);
        String name = p.getFileName().toString();
        if (HOOKS.isStartupHook(p)) return "an interpreter start-up hook";
        if (name.endsWith(".pyc")) return "Python byte code, which imports prefer to its source";
        if (TEST_NAME.matcher(name).matches()) return "a test source";
        if (SOURCE.matcher(name).matches()) {
            for (int i = 0; i < p.getNameCount() - 1; i++) if (TEST_DIRS.contains(p.getName(i).toString())) return "a source in a test folder";
        }
        return null;
    }
}
