package dev.crucible.verifier.grade;

import static org.assertj.core.api.Assertions.assertThat;

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
 * No oracle record is no evidence (blind round 12, x42/x26): in a wrapped or unittest run ({@link OracleEntry}), a pass
 * that no oracle record names, in a run whose record declares no refusal, came from a process the oracle never entered
 * (its configuration unset, its plugin stripped): it fails, says why, and the run gets an {@code oracle-evaded} finding.
 * A refusal the record declares (the oracle entered and stayed out, naming why) keeps its tests' in-process verdicts.
 */
class OracleRecordEvidenceTest {
    private static final VerifierSpec MAKE = new VerifierSpec("test-suite", "make test", null, null, null, null, null, null, null,
            null, null, null, null, null, null, null);

    @TempDir
    Path dir;

    @Test
    void passesNoRecordNamesFailWithAFinding() {
        Outcome channel = outcome(List.of(t("t.py::test_a", TestStatus.PASSED), t("t.py::test_b", TestStatus.PASSED), t("t.py::test_c", TestStatus.FAILED)));
        IsolatedVerdicts.EntryRun noRecord = IsolatedVerdicts.EntryRun.of(dir.resolve("missing.json"), OracleReport.empty());
        Outcome o = IsolatedVerdicts.merged(MAKE, channel, null, null, OracleReport.empty(), noRecord);
        assertThat(o.reward()).isEqualTo(0.0);
        assertThat(o.tests()).allSatisfy(t -> {
            assertThat(t.status()).isEqualTo(TestStatus.FAILED);
            assertThat(t.integrity()).isEqualTo(TestCase.IN_PROCESS);
        });
        assertThat(o.tests()).filteredOn(t -> t.id().equals("t.py::test_a")).singleElement()
                .satisfies(t -> assertThat(t.message()).contains("without the isolated oracle").contains("no record"));
        assertThat(o.integrity()).anySatisfy(f -> {
            assertThat(f.rule()).isEqualTo("oracle-evaded");
            assertThat(f.severity()).isEqualTo("medium");
            assertThat(f.evidence()).startsWith("2 of 3 test(s)");
        });
    }

    @Test
    void aRecordedTestOrADeclaredRefusalKeepsItsVerdict() throws Exception {
        Outcome channel = outcome(List.of(t("t.py::test_a", TestStatus.PASSED), t("t.py::test_b", TestStatus.PASSED)));
        Path record = dir.resolve("record.json");
        Files.writeString(record, "{\"tests\": {\"t.py::test_a\": {\"integrity\": \"isolated\"}}}");
        Outcome partly = IsolatedVerdicts.merged(MAKE, channel, null, null, OracleReport.read(record), IsolatedVerdicts.EntryRun.of(record, OracleReport.read(record)));
        assertThat(partly.tests()).filteredOn(t -> t.id().equals("t.py::test_a")).singleElement()
                .satisfies(t -> assertThat(t.status()).isEqualTo(TestStatus.PASSED));
        assertThat(partly.tests()).filteredOn(t -> t.id().equals("t.py::test_b")).singleElement()
                .satisfies(t -> assertThat(t.status()).isEqualTo(TestStatus.FAILED));

        Files.writeString(record, "{\"refused\": [\"the code under test ran in this process before the oracle could load: calc\"]}");
        // kept in-process, counted where the environment trusts such verdicts (by default fenced: InProcessFenceTest)
        VerifierSpec trusting = new VerifierSpec("test-suite", "make test", null, null, null, null, null, null, null, null, null, null, null,
                null, null, null, null, null, "trusted");
        Outcome refused = IsolatedVerdicts.merged(trusting, channel, null, null, OracleReport.read(record), IsolatedVerdicts.EntryRun.of(record, OracleReport.read(record)));
        assertThat(refused.reward()).isEqualTo(1.0);
        assertThat(refused.tests()).allSatisfy(t -> assertThat(t.integrity()).isEqualTo(TestCase.IN_PROCESS));
        assertThat(refused.integrity()).noneMatch(f -> "oracle-evaded".equals(f.rule()));
    }

    @Test
    void pristinePytestTomlIsTheConfigurationGradingPins() throws Exception {
        Files.writeString(dir.resolve("pytest.ini"), "[pytest]\n");
        Files.writeString(dir.resolve("pytest.toml"), "[pytest]\n");
        assertThat(PytestCommand.iniFile(dir, dir)).isEqualTo(dir.resolve("pytest.toml")); // pytest 9 reads it first
    }

    private static TestCase t(String id, TestStatus s) {
        return new TestCase(id, s, "other", null, null, TestCase.IN_PROCESS);
    }

    private static Outcome outcome(List<TestCase> tests) {
        return new Outcome("test-suite", 0.5, "partial", "tests-failed", null, 0.5, tests, Map.of(), 0, List.of());
    }
}
