package dev.crucible.derive;

import static dev.crucible.derive.WorkflowFixtures.derive;
import static dev.crucible.derive.WorkflowFixtures.step;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Rust CI shapes from public crates (rust-lang/log): cargo hack test, cargo-* tools from taiki-e/install-action. */
class RustCiShapesTest {
    @TempDir
    Path repo;

    @Test
    void cargoHackTestIsATestAndInstallActionInstallsIt() throws Exception {
        Derivation d = derive(repo, "rust-hack.yml");

        // Before: `cargo hack test` was not a test, so the fmt/clippy job was chosen.
        assertThat(d.verifier().command()).isEqualTo("cargo hack test --feature-powerset --exclude-features nightly");
        assertThat(d.verifier().type()).as("graded per test, feature set by feature set").isEqualTo("test-suite");
        assertThat(d.notes()).anyMatch(n -> n.contains("chose job 'test'"));
        assertThat(step(d, 3).decision()).isEqualTo(Disposition.SETUP);
        assertThat(d.setupScript()).contains("command -v cargo-hack >/dev/null || cargo install --locked cargo-hack")
                .doesNotContain("cargo install --locked just");
        assertThat(step(d, 3).reason()).contains("not installed: just");
    }

    @Test
    void cargoWithToolchainOrWrapperStillTests() {
        assertThat(CommandClassifier.classifyLine("cargo +nightly test --all").kind()).isEqualTo(CommandKind.TEST);
        assertThat(CommandClassifier.classifyLine("cargo llvm-cov --lcov").kind()).isEqualTo(CommandKind.TEST);
        assertThat(CommandClassifier.classifyLine("cargo hack check --each-feature").kind()).isNotEqualTo(CommandKind.TEST);
        assertThat(CommandClassifier.classifyLine("cargo +nightly clippy").kind()).isEqualTo(CommandKind.LINT);
    }

    @Test
    void aToolchainAnotherJobComputesIsStableNotThisMachinesDefault() throws Exception {
        // sharkdp/bat's MSRV job: the version is crate_metadata's output; "any" took rustup's default 1.85 < rust-version 1.88
        String text = """
                on: push
                jobs:
                  crate_metadata:
                    runs-on: ubuntu-latest
                    steps:
                      - id: meta
                        run: cargo metadata --no-deps --format-version 1 | jq -r '"msrv=" + .packages[0].rust_version' >> $GITHUB_OUTPUT
                    outputs:
                      msrv: ${{ steps.meta.outputs.msrv }}
                  min_version:
                    runs-on: ubuntu-latest
                    needs: crate_metadata
                    steps:
                      - uses: actions/checkout@v6
                      - uses: dtolnay/rust-toolchain@master
                        with:
                          toolchain: ${{ needs.crate_metadata.outputs.msrv }}
                      - run: cargo test --locked
                """;
        Derivation d = new WorkflowDeriver().deriveFromText(
                new DerivationRequest(repo, null, ".github/workflows/ci.yml", "min_version", java.util.Map.of(), null), text);
        assertThat(d.toolchains()).containsEntry("rust", "stable");
        assertThat(d.verifier().command()).isEqualTo("cargo test --locked");
    }

    @Test
    void aGoBuildScriptsTestTargetIsATestRun() {
        // syncthing's build-test job: `go run build.go test`; its meta job's `go test -v ./meta` was taken instead
        assertThat(CommandClassifier.classifyLine("go run build.go test").kind()).isEqualTo(CommandKind.TEST);
        assertThat(CommandClassifier.classifyLine("go run build.go -race test").kind()).isEqualTo(CommandKind.TEST);
        assertThat(CommandClassifier.classifyLine("go run build.go assets").kind()).isNotEqualTo(CommandKind.TEST);
        assertThat(CommandClassifier.classifyLine("go run ./cmd/tool").kind()).isNotEqualTo(CommandKind.TEST);
    }
}
