package dev.crucible.derive;

import static dev.crucible.derive.WorkflowFixtures.derive;
import static dev.crucible.derive.WorkflowFixtures.step;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** rust.yml: fmt, clippy, build and test over a toolchain matrix, plus an MSRV job that only checks. */
class RustWorkflowTest {
    @TempDir
    Path repo;

    @Test
    void stableByDefault() throws Exception {
        Derivation d = derive(repo, "rust.yml");

        assertThat(d.toolchains()).containsExactly(Map.entry("rust", "stable"));
        assertThat(d.env()).containsEntry("RUSTFLAGS", "-D warnings").containsEntry("CARGO_TERM_COLOR", "always");
        assertThat(d.verifier().command()).isEqualTo("cargo test --all-features --verbose");
        assertThat(d.lint().command()).containsSubsequence("cargo fmt --all -- --check",
                "cargo clippy --all-targets --all-features");
        assertThat(d.setupScript()).doesNotContain("cargo build --verbose");
        assertThat(d.steps()).anySatisfy(s -> assertThat(s.reason()).contains("compiles what cargo test compiles again"));
        assertThat(step(d, 3).reason()).contains("caching");
        assertThat(step(d, 8).decision()).isEqualTo(Disposition.DROPPED);
        assertThat(d.notes()).anyMatch(n -> n.contains("chose job 'test'"));
    }

    @Test
    void nightlyKeepsTheDocTestsInOrder() throws Exception {
        Derivation d = derive(repo, "rust.yml", "test", Map.of("toolchain", "nightly"), null);

        assertThat(d.toolchains()).containsEntry("rust", "nightly");
        assertThat(d.verifier().steps()).containsExactly(7, 8);
        // two plain cargo test steps: one line each, in order, graded per test line by line
        assertThat(d.verifier().command()).isEqualTo("cargo test --all-features --verbose\ncargo test --doc");
        assertThat(d.verifier().type()).isEqualTo("test-suite");
    }

    @Test
    void msrvJobHasNoTestsButCanBeGivenOne() throws Exception {
        assertThatThrownBy(() -> derive(repo, "rust.yml", "msrv", Map.of(), null))
                .isInstanceOf(DerivationException.class)
                .hasMessageContaining(".github/workflows/rust.yml:39")
                .hasMessageContaining("job 'msrv'")
                .hasMessageContaining("no step that runs tests")
                .hasMessageContaining("'cargo check --all-features' (line 44)");

        Derivation d = derive(repo, "rust.yml", "msrv", Map.of(), "3");
        assertThat(d.toolchains()).containsEntry("rust", "1.70.0");
        assertThat(d.verifier().command()).isEqualTo("cargo check --all-features");
        assertThat(step(d, 3).reason()).contains("--test-step");
    }
}
