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

    static Baseline.Result run(String manifest, PrintWriter err) throws IOException {
        Path runs = Files.createTempDirectory("crucible-baseline-");
        Path file = runs.resolve("environment.yaml");
        Files.writeString(file, manifest);
        err.println("crucible derive: baseline: running the environment twice with a no-op agent (results under " + runs + ")");
        err.flush();
        Baseline.Result r = Baseline.run(file, runs);
        if (!r.usable() && r.tests() == 0) {
            return r; // nothing was graded (setup failed): derive's "unusable" line says why
        }
        if (!r.perTest()) {
            err.println("crucible derive: baseline: no per-test results: the test command is graded as one execution");
        } else {
            err.println("crucible derive: baseline: " + r.tests() + " tests, " + r.passToPass().size() + " pass both times (passToPass), "
                    + r.excluded().size() + " excluded (" + Math.round(r.seconds()) + " s)");
            for (ExcludedTest t : r.excluded()) err.println("  excluded " + t.id() + " -- " + t.reason());
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
