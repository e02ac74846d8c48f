package dev.crucible.verifier.grade;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.crucible.verifier.Environment;
import dev.crucible.verifier.config.VerifierSpec;
import dev.crucible.verifier.grade.oracle.OracleReport;
import dev.crucible.verifier.grade.result.TestCase;
import dev.crucible.verifier.grade.result.TestStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fence (blind grading round 16): in a run the isolated oracle grades, a test it could not split is graded again
 * in-process, beside the code under test, which can forge that verdict. Such a pass earns nothing unless the environment
 * says {@code inProcessVerdicts: trusted}; it says why, and a failure stays a failure (steering a test there only fails it).
 */
class InProcessFenceTest {
    private static final String A = "tests/test_cfg.py::test_isolated", B = "tests/test_cfg.py::test_patches_the_tree";

    @TempDir
    Path dir;

    @Test
    void anInProcessPassEarnsNothingByDefaultAndSaysWhy() throws Exception {
        Outcome o = IsolatedVerdicts.merged(spec(null), isolated(), inProcess(TestStatus.PASSED), null, record(), null);
        assertThat(o.reward()).isEqualTo(0.0);
        assertThat(o.tests()).filteredOn(t -> t.id().equals(B)).singleElement().satisfies(t -> {
            assertThat(t.status()).isEqualTo(TestStatus.UNTRUSTED);
            assertThat(t.integrity()).isEqualTo(TestCase.IN_PROCESS);
            assertThat(t.message()).contains("monkeypatches calc.config").contains("inProcessVerdicts");
        });
        assertThat(o.tests()).filteredOn(t -> t.id().equals(A)).singleElement().satisfies(t -> assertThat(t.status()).isEqualTo(TestStatus.PASSED));
        assertThat(integrity(o)).containsEntry("inProcessVerdicts", "untrusted").containsEntry("untrustedInProcess", 1)
                .containsEntry("reward", TestCase.ISOLATED); // the fenced test can only have lowered it
        assertThat(o.integrity()).singleElement().satisfies(f -> {
            assertThat(f.rule()).isEqualTo("in-process-untrusted");
            assertThat(f.severity()).isEqualTo("info");
            assertThat(f.evidence()).startsWith("1 of 2 test(s)").contains(B);
        });
    }

    @Test
    void anEnvironmentThatTrustsInProcessVerdictsCountsThemAsBefore() throws Exception {
        Outcome o = IsolatedVerdicts.merged(spec("trusted"), isolated(), inProcess(TestStatus.PASSED), null, record(), null);
        assertThat(o.reward()).isEqualTo(1.0);
        assertThat(o.tests()).allSatisfy(t -> assertThat(t.status()).isEqualTo(TestStatus.PASSED));
        assertThat(integrity(o)).containsEntry("inProcessVerdicts", "trusted").containsEntry("reward", TestCase.IN_PROCESS)
                .doesNotContainKey("untrustedInProcess");
        assertThat(o.integrity()).noneMatch(f -> "in-process-untrusted".equals(f.rule()));
    }

    @Test
    void anInProcessFailureStaysAFailure() throws Exception {
        Outcome o = IsolatedVerdicts.merged(spec(null), isolated(), inProcess(TestStatus.FAILED), null, record(), null);
        assertThat(o.tests()).filteredOn(t -> t.id().equals(B)).singleElement().satisfies(t -> assertThat(t.status()).isEqualTo(TestStatus.FAILED));
        assertThat(integrity(o)).doesNotContainKey("untrustedInProcess");
    }

    @Test
    void aDeclaredRefusalOfAWrappedRunIsFencedToo() throws Exception {
        // a refusal the tree can cause (a planted pytest.py, its module run before the oracle loaded) must not earn
        Path rec = dir.resolve("refused.json");
        Files.writeString(rec, "{\"refused\": [\"the code under test ran in this process before the oracle could load: calc\"]}");
        OracleReport r = OracleReport.read(rec);
        Outcome channel = new Outcome("test-suite", 1.0, "pass", "passed", null, 1.0,
                List.of(new TestCase(A, TestStatus.PASSED, "other", null, null, TestCase.IN_PROCESS)), Map.of(), 0, List.of());
        VerifierSpec make = new VerifierSpec("test-suite", "make test", null, null, null, null, null, null, null, null, null, null, null,
                null, null, null, null, null, null);
        Outcome o = IsolatedVerdicts.merged(make, channel, null, null, r, IsolatedVerdicts.EntryRun.of(rec, r));
        assertThat(o.reward()).isEqualTo(0.0);
        assertThat(o.tests()).singleElement().satisfies(t -> assertThat(t.message()).contains("before the oracle could load"));
    }

    @Test
    void anUnknownValueIsRefusedNamingTheField() throws Exception {
        Files.createDirectories(dir.resolve("workspace"));
        String env = "kind: RLEnvironment\nmetadata: {name: fence}\nspec:\n  workspace: {path: ./workspace}\n  verifier:\n"
                + "    command: python3 -m pytest -q\n    inProcessVerdicts: %s\n";
        Files.writeString(dir.resolve("bad.yaml"), env.formatted("sometimes"));
        assertThatThrownBy(() -> Environment.load(dir.resolve("bad.yaml"))).hasMessageContaining("spec.verifier.inProcessVerdicts")
                .hasMessageContaining("untrusted").hasMessageContaining("sometimes");
        Files.writeString(dir.resolve("good.yaml"), env.formatted("trusted"));
        assertThat(Environment.load(dir.resolve("good.yaml")).spec().verifier().inProcessVerdictsTrusted()).isTrue();
    }

    private static VerifierSpec spec(String inProcessVerdicts) {
        return new VerifierSpec("test-suite", "python3 -m pytest -q", null, null, null, List.of(A, B), null, null, null, null, null, null, null,
                null, null, null, null, null, inProcessVerdicts);
    }

    /** The isolated run: A passed split; B left for in-process grading (the plugin reports it failed there). */
    private static Outcome isolated() {
        return new Outcome("test-suite", 0.0, "fail", "tests-failed", null, 0.5, List.of(
                new TestCase(A, TestStatus.PASSED, "other", null, null, null),
                new TestCase(B, TestStatus.FAILED, "other", null, "isolated oracle: needs in-process grading", null)), Map.of(), 0, List.of());
    }

    private static Outcome inProcess(TestStatus b) {
        return new Outcome("test-suite", 0.0, "fail", "tests-failed", null, 0.5, List.of(
                new TestCase(A, TestStatus.PASSED, "other", null, null, null), new TestCase(B, b, "other", null, null, null)), Map.of(), 0, List.of());
    }

    private OracleReport record() throws Exception {
        Path rec = dir.resolve("record.json");
        Files.writeString(rec, "{\"tests\": {\"" + A + "\": {\"integrity\": \"isolated\"}, \"" + B
                + "\": {\"integrity\": \"in-process\", \"reasons\": [\"a fixture monkeypatches calc.config\"]}}}");
        return OracleReport.read(rec);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> integrity(Outcome o) {
        return (Map<String, Object>) o.details().get("integrity");
    }
}
