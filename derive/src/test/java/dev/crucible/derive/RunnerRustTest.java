package dev.crucible.derive;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job that builds Rust without a toolchain step (tailwindcss: {@code pnpm run build} compiles its crates) gets what
 * rustup gives on GitHub's runner: the rust-toolchain file's channel, else stable; never this machine's default.
 */
class RunnerRustTest {
    @TempDir
    Path repo;

    private static final String WORKFLOW = """
            on: push
            jobs:
              tests:
                runs-on: ubuntu-latest
                steps:
                  - uses: actions/checkout@v4
                  - run: npm install
                  - run: npm test
            """;

    private Derivation derive(String text) throws DerivationException {
        return WorkflowFixtures.fromText(repo, ".github/workflows/ci.yml", text);
    }

    @Test
    void aRustWorkspaceWithAToolchainFileGetsItsChannel() throws Exception {
        Files.writeString(repo.resolve("package.json"), "{\"scripts\": {\"test\": \"vitest run\"}}\n");
        Files.writeString(repo.resolve("Cargo.toml"), "[workspace]\nmembers = [\"crates/*\"]\n");
        Files.writeString(repo.resolve("rust-toolchain.toml"), "[toolchain]\nchannel = \"1.95.0\"\nprofile = \"default\"\n");
        Derivation d = derive(WORKFLOW);
        assertThat(d.toolchains()).containsEntry("rust", "1.95.0");
        assertThat(d.notes()).anyMatch(n -> n.contains("rust-toolchain file pins 1.95.0"));
    }

    @Test
    void aRustWorkspaceWithoutOneGetsStableAndARepositoryWithoutCargoGetsNoRust() throws Exception {
        Files.writeString(repo.resolve("package.json"), "{\"scripts\": {\"test\": \"vitest run\"}}\n");
        assertThat(derive(WORKFLOW).toolchains()).doesNotContainKey("rust");
        Files.writeString(repo.resolve("Cargo.toml"), "[package]\nname = \"x\"\nversion = \"0.1.0\"\n");
        assertThat(derive(WORKFLOW).toolchains()).containsEntry("rust", "stable");
        Files.writeString(repo.resolve("rust-toolchain"), "nightly-2025-01-01\n");
        assertThat(derive(WORKFLOW).toolchains()).containsEntry("rust", "nightly-2025-01-01");
    }

    @Test
    void aToolchainTheJobAsksForIsKept() throws Exception {
        Files.writeString(repo.resolve("Cargo.toml"), "[package]\nname = \"x\"\nversion = \"0.1.0\"\n");
        Files.writeString(repo.resolve("rust-toolchain.toml"), "[toolchain]\nchannel = \"1.95.0\"\n");
        Derivation d = derive("""
                on: push
                jobs:
                  msrv:
                    runs-on: ubuntu-latest
                    steps:
                      - uses: actions/checkout@v4
                      - uses: dtolnay/rust-toolchain@1.88
                      - run: cargo test
                """);
        assertThat(d.toolchains()).containsEntry("rust", "1.88");
    }
}
