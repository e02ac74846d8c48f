package dev.crucible.derive;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * caddy: {@code go test -coverprofile="cover-profile.out" -short -race ./...} failed in grading before any test ran
 * ("open …/cover-profile.out: read-only file system"): the coverage flags go, as pytest's --cov do; -race, -short and
 * the flags after -args stay.
 */
class GoCoverageFlagsTest {
    @TempDir
    Path repo;

    @Test
    void coverageFlagsLeaveTheGoTestCommand() throws Exception {
        Files.writeString(repo.resolve("go.mod"), "module example.com/m\n\ngo 1.22\n");
        Derivation d = WorkflowFixtures.fromText(repo, ".github/workflows/ci.yml", """
                on: push
                jobs:
                  test:
                    runs-on: ubuntu-latest
                    steps:
                    - uses: actions/checkout@v4
                    - uses: actions/setup-go@v5
                      with: {go-version-file: go.mod}
                    - name: Run tests
                      run: |
                        mkdir -p test-results
                        go test -coverprofile="cover-profile.out" -covermode atomic -short -race ./...
                """);
        assertThat(d.verifier().command()).contains("go test -short -race ./...").doesNotContain("cover");
        // the folder made before the runner does not make the suite one execution (lazygit)
        assertThat(d.verifier().type()).isEqualTo("test-suite");
        assertThat(VerifierShapes.preparedRunner("mkdir -p x\ngo test ./...")).isTrue();
        assertThat(VerifierShapes.preparedRunner("go vet ./...\ngo test ./...")).isFalse(); // a lint line's result would be lost
        assertThat(VerifierShapes.preparedRunner("go test ./a\ngo test ./b")).isFalse();
        assertThat(VerifierShapes.preparedRunner("mkdir -p x\ngo test ./... | tee log")).isFalse();
        // the binary built without -cover refuses -test.gocoverdir: it goes with -cover, other test flags stay
        assertThat(CoverageWrappers.rewrite("go test -cover ./... -args -test.gocoverdir=/tmp/x"))
                .isEqualTo("go test ./...");
        assertThat(CoverageWrappers.rewrite("go test ./... -short -cover -args \"-test.gocoverdir=/tmp/x\" -update=false"))
                .isEqualTo("go test ./... -short -args -update=false");
        assertThat(CoverageWrappers.rewrite("go test ./... -args -test.gocoverdir=/tmp/x"))
                .isEqualTo("go test ./... -args -test.gocoverdir=/tmp/x"); // no -cover went: left as CI has it
        assertThat(CoverageWrappers.rewrite("go vet -coverprofile=x ./...")).isEqualTo("go vet -coverprofile=x ./...");
    }
}
