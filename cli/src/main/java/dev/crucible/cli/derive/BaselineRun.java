package dev.crucible.cli.derive;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.crucible.verifier.config.ExcludedTest;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;

/** {@code crucible derive --baseline}: the derived manifest run in a scratch folder, its outcome said on stderr and in the report. */
final class BaselineRun {
    private static final ObjectMapper JSON = new ObjectMapper();

    private BaselineRun() {}

    /**
     * Runs the baseline in a scratch folder; each run's result.json and logs are then kept under {@code keep} (null: a
     * {@code -results} folder beside the scratch) and the scratch, with its workspaces and venvs, deleted.
     */
    static Baseline.Result run(String manifest, PrintWriter err, Path keep) throws IOException {
        java.util.List<Path> scratch = new java.util.ArrayList<>();
        try {
            return run(manifest, err, keep, scratch);
        } finally {
            for (Path p : scratch) RunResults.delete(p);
        }
    }

    /**
     * As {@link #run(String, PrintWriter, Path)}, but the scratch (which can hold a gigabyte of node_modules) is added to
     * {@code toDelete} for the caller to delete once it has written the verdict: shadcn-ui's baseline ended with a named
     * setup timeout, and the deletion of its scratch ran on past the batch's limit, so the batch recorded an anonymous
     * timeout. A run that throws deletes its scratch at once.
     */
    static Baseline.Result run(String manifest, PrintWriter err, Path keep, java.util.List<Path> toDelete) throws IOException {
        Path runs = Files.createTempDirectory("crucible-baseline-");
        Path results = keep != null ? keep.toAbsolutePath().normalize() : runs.resolveSibling(runs.getFileName() + "-results");
        Path file = runs.resolve("environment.yaml");
        Files.writeString(file, manifest);
        // both folders named: a batch that stops this derive keeps the scratch's results itself (RepoBatch)
        err.println("crucible derive: baseline: running the environment twice with a no-op agent (scratch " + runs
                + "; results under " + results + ")");
        err.flush();
        Baseline.Result r;
        boolean ran = false;
        try {
            r = Baseline.run(file, runs);
            ran = true;
        } finally {
            if (ran) {
                RunResults.copy(runs, results);
                toDelete.add(runs);
            } else {
                RunResults.keep(runs, results);
            }
            err.println("crucible derive: baseline: each run's result.json and logs are in " + results
                    + " (the scratch with its workspaces is deleted)");
            err.flush();
        }
        if (!r.usable()) { // "see SCRATCH/baseline-1/setup.log": the log is kept, the scratch is not
            r = new Baseline.Result(r.unusable().replace(runs.toString(), results.toString()), r.perTest(), r.passToPass(),
                    r.excluded(), r.tests(), r.seconds());
        }
        if (!r.usable() && r.tests() == 0) {
            return r; // nothing was graded (setup failed): derive's "unusable" line says why
        }
        if (!r.perTest()) {
            err.println("crucible derive: baseline: no per-test results: the test command is graded as one execution");
        } else {
            err.println("crucible derive: baseline: " + r.tests() + " tests, " + r.passToPass().size() + " pass both times (passToPass), "
                    + r.excluded().size() + " excluded (" + Math.round(r.seconds()) + " s)");
            for (ExcludedTest t : r.excluded()) err.println("  excluded " + t.id() + " -- " + t.reason());
            long inProcess = Baseline.inProcessOnly(r);
            if (inProcess > 0) { // the isolated oracle could not split them: say what would count them, and its cost
                err.println("crucible derive: baseline: " + inProcess + " of " + r.tests() + " tests pass only in-process and are"
                        + " excluded; spec.verifier.inProcessVerdicts: trusted counts them, and lets the code under test forge"
                        + " such verdicts (sidecar-verifier README)");
            }
        }
        err.flush();
        return r;
    }

    /** The step report with a {@code baseline} object added. */
    static String report(String reportJson, Baseline.Result r) throws IOException {
        ObjectNode n = (ObjectNode) JSON.readTree(reportJson);
        n.set("baseline", JSON.valueToTree(Baseline.json(r)));
        return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(n) + "\n";
    }
}
