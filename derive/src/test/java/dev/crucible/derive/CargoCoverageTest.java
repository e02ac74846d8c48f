package dev.crucible.derive;

import static dev.crucible.derive.WorkflowFixtures.step;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * starship: {@code taiki-e/install-action} with {@code tool: cargo-llvm-cov}, then {@code cargo llvm-cov --all-features
 * --locked --workspace --lcov --output-path lcov.info -- --include-ignored}. Setup compiled cargo-llvm-cov from source
 * (past a 200 s setup limit) and grading would write lcov.info into the read-only tree. Coverage leaves grading as it
 * does for pytest and go test: the command is cargo test with the same cargo options and test arguments, and the
 * install goes; an install of a coverage tool a kept command still runs stays.
 */
class CargoCoverageTest {
    @TempDir
    Path repo;

    private static final String WORKFLOW = """
            on: push
            jobs:
              test:
                runs-on: ubuntu-latest
                steps:
                  - uses: actions/checkout@v4
                  - uses: dtolnay/rust-toolchain@stable
                  - name: Install cargo-llvm-cov
                    uses: taiki-e/install-action@v2
                    with:
                      tool: cargo-llvm-cov
                  - name: Build | Test
                    run: "cargo llvm-cov
                      --all-features
                      --locked
                      --workspace
                      --lcov --output-path lcov.info
                      -- --include-ignored"
            """;

    @Test
    void cargoLlvmCovIsGradedAsCargoTestAndItsInstallGoes() throws Exception {
        Files.writeString(repo.resolve("Cargo.toml"), "[package]\nname = \"s\"\nversion = \"0.1.0\"\nedition = \"2021\"\n");
        Derivation d = WorkflowFixtures.fromText(repo, ".github/workflows/ci.yml", WORKFLOW);
        assertThat(d.verifier().command()).isEqualTo("cargo test --all-features --locked --workspace -- --include-ignored");
        assertThat(d.verifier().type()).isEqualTo("test-suite");
        assertThat(step(d, 3).decision()).isEqualTo(Disposition.DROPPED);
        assertThat(step(d, 3).reason()).contains("installs cargo-llvm-cov, a coverage tool the test command no longer runs");
        assertThat(d.setupScript()).doesNotContain("llvm-cov");
    }

    @Test
    void theRewriteKeepsCargoOptionsAndDropsReportOnlyLines() {
        assertThat(CoverageWrappers.rewrite("cargo +nightly llvm-cov nextest --workspace --codecov --output-path codecov.json"))
                .isEqualTo("cargo +nightly nextest run --workspace");
        assertThat(CoverageWrappers.rewrite("cargo llvm-cov test -p core --fail-under-lines=80 --html")).isEqualTo("cargo test -p core");
        assertThat(CoverageWrappers.rewrite("cargo llvm-cov report --lcov --output-path lcov.info")).isNull();
        assertThat(CoverageWrappers.rewrite("cargo test --workspace")).isEqualTo("cargo test --workspace");
    }

    @Test
    void anInstallAKeptCommandStillUsesStays() throws Exception {
        Files.writeString(repo.resolve("Cargo.toml"), "[package]\nname = \"s\"\nversion = \"0.1.0\"\nedition = \"2021\"\n");
        // a piped llvm-cov line is not rewritten (its output is read by the pipe), so its tool is still needed
        Derivation d = WorkflowFixtures.fromText(repo, ".github/workflows/ci.yml", WORKFLOW.replace("-- --include-ignored\"", "-- --include-ignored | tee cov.txt\""));
        assertThat(d.verifier().command()).contains("cargo llvm-cov");
        assertThat(step(d, 3).decision()).isEqualTo(Disposition.SETUP);
        assertThat(d.setupScript()).contains("cargo install --locked cargo-llvm-cov");
    }
}
