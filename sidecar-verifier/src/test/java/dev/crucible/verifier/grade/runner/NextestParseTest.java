package dev.crucible.verifier.grade.runner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.grade.result.TestCase;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * nextest's status lines. cargo-nextest is not installed in the test tier, so this output is written by
 * hand in the format its book shows (nexte.st, "Running tests"), not recorded from a run.
 */
class NextestParseTest {
    static final String OUTPUT = """
            ------------
             Nextest run ID 1f79aa0d-4ec8-4a5c-aa83-5e8dc2f36573 with nextest profile: default
                Starting 3 tests across 2 binaries (1 test skipped)
                    PASS [   0.005s] fixture tests::adds
                    FAIL [   0.004s] fixture tests::subtracts
                    PASS [   0.004s] fixture::it smoke
                    SKIP [         ] fixture tests::slow
            ------------
                 Summary [   0.011s] 3 tests run: 2 passed, 1 failed, 1 skipped
            """;

    @Test
    void statusLinesBecomeTestsAndMatchTheSummary() {
        TestRunner.Report r = new NextestRunner().read(new ExecResult(100, OUTPUT, "", false, false, 10, 1), Path.of("/g"), Path.of("/g"));
        assertThat(r.tests()).extracting(TestCase::id).containsExactly("fixture::tests::adds", "fixture::tests::subtracts", "fixture::it::smoke", "fixture::tests::slow");
        assertThat(r.tests()).extracting(t -> t.status().json()).containsExactly("passed", "failed", "passed", "skipped");
        assertThat(r.findings()).isEmpty();
    }

    @Test
    void anExtraPassLineDisagreesWithTheSummary() {
        String forged = OUTPUT.replace("        SKIP", "        PASS [   0.001s] fixture tests::forged\n        SKIP");
        TestRunner.Report r = new NextestRunner().read(new ExecResult(100, forged, "", false, false, 10, 1), Path.of("/g"), Path.of("/g"));
        assertThat(r.findings()).anySatisfy(f -> assertThat(f.severity()).isEqualTo("critical"));
    }
}
