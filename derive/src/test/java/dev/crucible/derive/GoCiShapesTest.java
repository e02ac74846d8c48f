package dev.crucible.derive;

import static dev.crucible.derive.WorkflowFixtures.derive;
import static dev.crucible.derive.WorkflowFixtures.step;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Go through WillAbides/setup-go-faster (cespare/xxhash): a go toolchain request, not a dropped step. */
class GoCiShapesTest {
    @TempDir
    Path repo;

    @Test
    void setupGoFasterAsksForGo() throws Exception {
        Derivation d = derive(repo, "go-faster.yml");

        assertThat(d.toolchains()).containsExactly(Map.entry("go", "1.22.x"));
        assertThat(step(d, 1).decision()).isEqualTo(Disposition.TOOLCHAIN);
    }

    @Test
    void perTestSuiteCountsSkippedTestsAsCiDoes() throws Exception {
        Derivation d = derive(repo, "go-faster.yml");

        // google/uuid: one t.Skip at HEAD made a no-op agent's reward 0 (212 passed, 1 skipped).
        assertThat(d.verifier().type()).isEqualTo("test-suite");
        assertThat(d.manifest().at("/spec/verifier/countSkippedAsPassed").asBoolean()).isTrue();
    }

    @Test
    void plainRunnerStepsBecomeOneLineEachGradedPerTest() throws Exception {
        Derivation d = derive(repo, "go-two-runs.yml");

        // the third step pipes into tee: not a plain runner line, so the three stay one script; its last line is no
        // runner, so the grader instruments every go test in it (the piped one too) and grades per test
        assertThat(d.verifier().type()).isEqualTo("test-suite");
        assertThat(VerifierShapes.endsInWrapper("go test -race ./... | tee race.log")).as("the grader would rewrite this line itself").isFalse();
        assertThat(VerifierShapes.endsInWrapper("make test")).isTrue();
    }

    @Test
    void twoPlainRunnerStepsAreGradedLineByLine() throws Exception {
        String two = WorkflowFixtures.text("go-two-runs.yml").replace("      - name: Race\n        run: go test -race ./... | tee race.log\n", "");
        Derivation d = WorkflowFixtures.fromText(repo, ".github/workflows/go-two.yml", two);

        assertThat(d.verifier().type()).isEqualTo("test-suite");
        assertThat(d.verifier().command()).isEqualTo("go test -count 1 ./...\nCGO_ENABLED=0 go test -count 1 -tags purego ./...");
    }
}
