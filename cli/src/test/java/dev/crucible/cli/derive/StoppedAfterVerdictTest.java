package dev.crucible.cli.derive;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * shadcn-ui: its baseline ended with a named setup timeout, then deleting the 1 GB scratch ran past the batch's limit
 * and the row said only "timeout". derive now writes its report before it deletes the scratch, and a batch that stops
 * it after that reads the verdict from the report (DeriveBaselineTest checks the order on a real derive).
 */
class StoppedAfterVerdictTest {
    @TempDir
    Path dir;

    @Test
    void aDeriveStoppedWhileDeletingItsScratchKeepsItsVerdict() throws Exception {
        RepoList.Entry e = new RepoList.Entry(1, dir.resolve("ui"), null, "ui");
        Path log = dir.resolve("ui.log");
        Files.writeString(log, "crucible derive: wrote ui.yaml (RLEnvironment ui-test, job 'test', verifier: pnpm test)\n"
                + "crucible derive: unusable at HEAD: baseline run 1: setup timed out (its limit, --setup-timeout)\n"
                + "crucible derive: baseline: deleting the scratch /tmp/crucible-baseline-1\n");
        Path report = dir.resolve("ui.report.json");
        Files.writeString(report, """
                {"workflow": ".github/workflows/test.yml", "job": "test", "verifier": {"command": "pnpm test"},
                 "baseline": {"usable": false, "unusable": "baseline run 1: setup timed out (its limit, --setup-timeout)",
                              "perTest": false, "tests": 0, "passToPass": 0, "excluded": []}}
                """);
        RepoOutcome o = RepoOutcome.read(e, null, 420, log, report, 658);
        assertThat(o.status()).isEqualTo("unusable");
        assertThat(o.reason()).contains("setup timed out").contains("stopped at the 420 s limit after writing this, while deleting its scratch");

        Files.delete(report); // stopped before any verdict: a timeout, as before
        assertThat(RepoOutcome.read(e, null, 420, log, report, 658).status()).isEqualTo("timeout");
    }
}
