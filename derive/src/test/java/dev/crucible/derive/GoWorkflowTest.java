package dev.crucible.derive;

import static dev.crucible.derive.WorkflowFixtures.derive;
import static dev.crucible.derive.WorkflowFixtures.repository;
import static dev.crucible.derive.WorkflowFixtures.step;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** go.yml: build, vet, golangci-lint, race tests and a Codecov upload. */
class GoWorkflowTest {
    @TempDir
    Path dir;

    @Test
    void goVersionComesFromGoMod() throws Exception {
        Derivation d = derive(repository(dir), "go.yml");

        assertThat(d.toolchains()).containsExactly(Map.entry("go", "1.22.5"));
        assertThat(step(d, 2).reason()).contains("go-version-file go.mod");
    }

    @Test
    void buildIsSetupVetAndGolangciAreLintGoTestIsTheVerifier() throws Exception {
        Derivation d = derive(repository(dir), "go.yml");

        // go test compiles the packages itself: the job's `go build ./...` only costs setup time.
        assertThat(d.steps()).extracting(StepReport::decision).containsExactly(Disposition.DROPPED,
                Disposition.TOOLCHAIN, Disposition.DROPPED, Disposition.LINT, Disposition.LINT, Disposition.TEST,
                Disposition.DROPPED);
        // the coverage flags go (CoverageWrappers): the profile is a report, not a result, and a wrapped command's tree is read-only
        assertThat(d.verifier().command()).isEqualTo("go test -race ./...");
        assertThat(d.lint().command()).containsSubsequence("go vet ./...", "golangci-lint run");
        assertThat(d.lint().steps()).containsExactly(4, 5);
        // golangci-lint must exist before the lint verifier runs: its install goes to setup, pinned as CI pins it.
        assertThat(d.setupScript()).contains("go install github.com/golangci/golangci-lint/cmd/golangci-lint@v1.60");
        assertThat(step(d, 7).reason()).contains("codecov");
        assertThat(d.secretEnv()).isEmpty();
    }

    @Test
    void withoutGoModTheVersionIsLeftOpen() throws Exception {
        Derivation d = derive(dir, "go.yml");

        assertThat(d.toolchains()).containsExactly(Map.entry("go", "*"));
    }
}
