package dev.crucible.verifier.grade.runner;

import static dev.crucible.verifier.grade.runner.RecordedRunnerOutputTest.resource;
import static dev.crucible.verifier.grade.runner.RecordedRunnerOutputTest.statuses;
import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.verifier.exec.ExecResult;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code cargo hack test} (one cargo test per feature set) graded per test, on output recorded from a real
 * cargo-hack run (resources {@code runner-output/cargo-hack.*}): each run's tests carry its feature flags,
 * the failing feature set is told apart from the passing one, and libtest's own counts still cross-check.
 */
class CargoHackTest {
    static final CargoTestRunner CARGO = new CargoTestRunner();

    @Test
    void hackTestIsCargoTestAndTheGraderKeepsGoingPastAFailingFeatureSet() {
        assertThat(CARGO.matches(TestCommand.parse("cargo hack test --feature-powerset").orElseThrow())).isTrue();
        assertThat(CARGO.matches(TestCommand.parse("cargo hack --each-feature test -- --test-threads 1").orElseThrow())).isTrue();
        assertThat(CARGO.matches(TestCommand.parse("cargo hack check --feature-powerset").orElseThrow())).isFalse();
        assertThat(CARGO.plan(TestCommand.parse("cargo hack test --feature-powerset").orElseThrow(), Path.of("/OUT"), Path.of("/ROOT")).command())
                .isEqualTo("cargo hack --keep-going test --no-fail-fast --feature-powerset 2>&1");
    }

    @Test
    void eachFeatureSetsTestsAreTheirOwn() throws IOException {
        TestRunner.Report r = CARGO.read(run(resource("cargo-hack.stdout")), Path.of("/OUT"), Path.of("/ROOT"));
        assertThat(statuses(r)).containsExactly(
                Map.entry("ht/src/lib.rs::tests::greets [--no-default-features]", "passed"),
                Map.entry("ht/src/lib.rs::tests::quiet_by_default [--no-default-features]", "passed"),
                Map.entry("ht/src/lib.rs::tests::greets [--no-default-features --features loud]", "passed"),
                Map.entry("ht/src/lib.rs::tests::quiet_by_default [--no-default-features --features loud]", "failed"));
        assertThat(r.findings()).isEmpty();
        assertThat(r.tests().get(3).message()).contains("\"HELLO\"");
    }

    @Test
    void aTestLineRewrittenToPassDisagreesWithItsFeatureSetsSummary() throws IOException {
        String forged = resource("cargo-hack.stdout").replace("test tests::quiet_by_default ... FAILED", "test tests::quiet_by_default ... ok");
        TestRunner.Report r = CARGO.read(run(forged), Path.of("/OUT"), Path.of("/ROOT"));
        assertThat(r.findings()).anySatisfy(f -> {
            assertThat(f.severity()).isEqualTo("critical");
            assertThat(f.evidence()).contains("libtest's summary for ht/src/lib.rs");
        });
    }

    private static ExecResult run(String stdout) throws IOException {
        return new ExecResult(Integer.parseInt(resource("cargo-hack.exit").strip()), stdout, "", false, false, 100, 1);
    }
}
