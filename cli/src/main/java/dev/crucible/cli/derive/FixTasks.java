package dev.crucible.cli.derive;

import dev.crucible.contract.PhaseName;
import dev.crucible.derive.Derivation;
import dev.crucible.derive.DerivationException;
import dev.crucible.derive.DerivationRequest;
import dev.crucible.derive.FixCommit;
import dev.crucible.derive.WorkflowDeriver;
import dev.crucible.derive.WorkflowFinder;
import dev.crucible.verifier.pristine.ProtectedPaths;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Cuts RL tasks from a repository's own fix commits (issue 15, point 5). For each fix: derive the
 * environment from CI at the fix's parent, hide the fix's tests, keep its source diff as the reference
 * solution, then really run the suite through the local runtime before (no-op agent) and after (the
 * reference patch applied) to compute failToPass and passToPass, and finally check the written task:
 * the reference patch must score 1 and a no-op agent 0. A fix that fails any of this is refused, with
 * one line saying why, and leaves no folder behind.
 */
final class FixTasks {
    /** What became of one fix commit: a task written, or the reason it was refused. */
    record Result(String commit, String subject, Path dir, int failToPass, int passToPass, String status,
            double seconds) {
        boolean written() {
            return status.equals("ok");
        }
    }

    private final Path repo;
    private final String workflow;
    private final String job;
    private final PrintWriter log;
    /** Where a workflow file an older fix predates is read (the scan's start). */
    private final String from;

    FixTasks(Path repo, String workflow, String job, PrintWriter log, String from) {
        this.repo = repo;
        this.from = from == null ? "HEAD" : from;
        this.workflow = workflow;
        this.job = job;
        this.log = log;
    }

    /** Makes the task for {@code commitish} in {@code dir}. */
    Result make(String commitish, Path dir) {
        long start = System.nanoTime();
        FixCommit fix;
        try {
            fix = FixCommit.read(repo, commitish);
        } catch (IOException e) {
            return new Result(commitish, "", dir, 0, 0, "refused: " + e.getMessage(), 0);
        }
        String status;
        int[] counts = {0, 0};
        try {
            status = make(fix, dir, counts);
        } catch (IOException | DerivationException e) {
            status = "refused: " + e.getMessage();
        }
        if (!status.equals("ok")) {
            try {
                FixTaskFolder.delete(dir);
            } catch (IOException e) {
                status += " (and " + dir + " could not be removed: " + e.getMessage() + ")";
            }
        }
        return new Result(fix.commit(), fix.subject(), dir, counts[0], counts[1], status,
                (System.nanoTime() - start) / 1e9);
    }

    private String make(FixCommit fix, Path dir, int[] counts) throws IOException, DerivationException {
        String refusal = fix.refusal();
        if (refusal != null) {
            return "refused: " + refusal;
        }
        String repoName = repo.toAbsolutePath().normalize().getFileName().toString();
        Derivation d = derive(fix.parent());
        FixVerifier.Command command = FixVerifier.of(d);
        // what the task protects (tox.ini, conftest.py, …) no agent may change, so the reference leaves it out too
        ProtectedPaths protectedPaths = protectedPaths(d);
        List<String> reference = fix.sourceFiles().stream().filter(f -> !protectedPaths.isProtected(Path.of(f))).toList();
        List<String> leftOut = fix.sourceFiles().stream().filter(f -> !reference.contains(f)).toList();
        if (reference.isEmpty()) return "refused: the fix changes only files the task protects: " + String.join(", ", leftOut);
        FixTaskFolder.prepare(dir, repo, fix, reference);
        Path manifest = dir.resolve(FixTaskFolder.MANIFEST);
        Path runs = Files.createTempDirectory("crucible-fix-runs-");
        try {
            // Before and after, every test counts (no lists yet): the runs only collect per-test results.
            FixTaskFolder.shape(d, fix, repoName, command, List.of(), List.of());
            Files.writeString(manifest, d.manifestYaml());
            String gold = Files.readString(dir.resolve(FixTaskFolder.REFERENCE)); // applied through a file (crucible run's patches)
            log("  " + FixCommit.shortId(fix.commit()) + ": running the suite before the fix (no-op agent)");
            LocalRuns.Outcome before = LocalRuns.run(manifest, "true", runs.resolve("before"));
            // graded, yet no test ran: the fix's new tests import what only the fix adds, and the runner stopped at
            // collection; every test then counts as not passing before the fix (failToPass may take in tests that
            // would have passed: under SWE-bench semantics both lists must pass, so the reward is the same)
            boolean nothingRanBefore = before.tests().isEmpty() && PhaseName.Succeeded.name().equals(before.phase());
            if (before.tests().isEmpty() && !nothingRanBefore) {
                return "refused: no per-test results before the fix (" + describe(before) + ")";
            }
            log("  " + FixCommit.shortId(fix.commit()) + ": running the suite after the fix (reference patch)");
            LocalRuns.Outcome after = LocalRuns.runPatched(manifest, gold, runs.resolve("after"));
            if (after.tests().isEmpty()) {
                return "refused: no per-test results with the reference patch (" + describe(after) + ")";
            }
            List<String> failToPass = new ArrayList<>();
            List<String> passToPass = new ArrayList<>();
            for (String id : after.tests().keySet()) {
                if (!inTestFile(id)) {
                    // A doctest collected from a source module: listing it would protect that module, so
                    // the reference patch itself would count as tampering.
                    continue;
                }
                if (after.passed(id) && !before.passed(id)) {
                    failToPass.add(id);
                } else if (after.passed(id)) {
                    passToPass.add(id);
                }
            }
            counts[0] = failToPass.size();
            counts[1] = passToPass.size();
            if (failToPass.isEmpty()) {
                List<String> failingAfter = after.tests().entrySet().stream()
                        .filter(e -> !after.passed(e.getKey()) && isHiddenTest(fix, e.getKey())).map(Map.Entry::getKey)
                        .toList();
                return "refused: failToPass is empty: " + (failingAfter.isEmpty()
                        ? "no test fails before the fix" : "the fix's own tests fail with the reference patch too: "
                        + first(failingAfter));
            }
            Derivation shaped = derive(fix.parent());
            FixTaskFolder.shape(shaped, fix, repoName, command, failToPass, passToPass);
            Files.writeString(manifest, header(fix, command, before, after, leftOut) + shaped.manifestYaml());
            log("  " + FixCommit.shortId(fix.commit()) + ": checking the task (reference patch → 1, no-op → 0)");
            LocalRuns.Outcome goldRun = LocalRuns.runPatched(manifest, gold, runs.resolve("gold"));
            if (goldRun.reward() == null || goldRun.reward() != 1.0) {
                return "refused: the reference patch does not pass the written task: reward " + goldRun.reward()
                        + " (" + describe(goldRun) + ")";
            }
            LocalRuns.Outcome noop = LocalRuns.run(manifest, "true", runs.resolve("noop"));
            if (noop.reward() == null || noop.reward() != 0.0) {
                return "refused: a no-op agent gets reward " + noop.reward() + ", not 0";
            }
            return "ok";
        } finally {
            FixTaskFolder.delete(runs);
        }
    }

    /**
     * The environment at {@code commit}, from its own workflow; a named workflow the commit predates is taken from
     * the tree the scan started at (the gold and no-op runs then say whether today's CI still fits that code).
     */
    private Derivation derive(String commit) throws DerivationException {
        if (workflow == null) return WorkflowFinder.derive(repo, commit, job);
        return new WorkflowDeriver().derive(new DerivationRequest(repo, commit, workflow, job, Map.of(), null), from);
    }

    private static boolean isHiddenTest(FixCommit fix, String id) {
        int sep = id.indexOf("::");
        String file = sep < 0 ? id : id.substring(0, sep);
        return fix.testFiles().contains(file);
    }

    /** Whether a test id's file (before "::") is a test file; ids without a file count as tests. */
    static boolean inTestFile(String id) {
        int sep = id.indexOf("::");
        return sep < 0 || FixCommit.isTestPath(id.substring(0, sep));
    }

    private static String first(List<String> ids) {
        return ids.size() <= 3 ? String.join(", ", ids) : String.join(", ", ids.subList(0, 3)) + " and "
                + (ids.size() - 3) + " more";
    }

    private static String describe(LocalRuns.Outcome o) {
        long failed = o.tests().values().stream().filter(s -> !s.equals("passed") && !s.equals("xpassed")).count();
        return "phase " + o.phase() + (o.tests().isEmpty() ? "" : ", " + failed + " of " + o.tests().size()
                + " tests not passing") + (o.message() == null || o.message().isBlank() ? "" : ": "
                + o.message().lines().findFirst().orElse(""));
    }

    /** The derived verifier's protected globs with the defaults every environment gets (conftest.py, test configuration). */
    private static ProtectedPaths protectedPaths(Derivation d) {
        List<String> globs = new ArrayList<>(ProtectedPaths.CONFTEST);
        globs.addAll(ProtectedPaths.TEST_CONFIG_FILES);
        d.manifest().at("/spec/verifier/protectedPaths").forEach(g -> globs.add(g.asText()));
        return new ProtectedPaths(globs);
    }

    private static String header(FixCommit fix, FixVerifier.Command command, LocalRuns.Outcome before,
            LocalRuns.Outcome after, List<String> leftOut) {
        StringBuilder h = new StringBuilder("# Fix task cut from commit ").append(fix.commit()).append(" (")
                .append(fix.subject().replace('\n', ' ')).append(")\n")
                .append("# workspace: its parent ").append(fix.parent()).append("; hidden tests: ")
                .append(String.join(", ", fix.testFiles())).append("\n")
                .append("# reference solution: ").append(FixTaskFolder.REFERENCE).append(" (").append(fix.sourceFiles().size())
                .append(" file(s)); measured before the fix in ").append(Math.round(before.seconds())).append(" s and after in ")
                .append(Math.round(after.seconds())).append(" s with crucible run\n");
        if (!leftOut.isEmpty()) {
            h.append("# the reference solution leaves out what the task protects (no agent may change it): ")
                    .append(String.join(", ", leftOut)).append("\n");
        }
        if (command.note() != null) {
            h.append("# verifier: ").append(command.note()).append("\n");
        }
        if (!fix.deletedTests().isEmpty()) {
            h.append("# the fix deletes test files ").append(String.join(", ", fix.deletedTests()))
                    .append(": they stay in the workspace\n");
        }
        return h.append("#\n").toString();
    }

    private void log(String line) {
        if (log != null) {
            log.println(line);
            log.flush();
        }
    }
}
