package dev.crucible.verifier.toolchain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A crate with a crates.io dependency and no Cargo.lock (dtolnay/semver at HEAD): setup fetches the
 * crates into the environment's CARGO_HOME, and grading's cargo builds from them offline instead of
 * trying to update the index it cannot reach.
 */
@Timeout(900)
class CargoOfflineTest {
    @Test
    void gradingBuildsWithWhatSetupFetched(@TempDir Path dir) throws Exception {
        InstalledToolchains m = InstalledToolchains.machine();
        ExecEnvironment e = ExecEnvironments.plan("cargo-offline-test", "k", Map.of("rust", "stable"), Map.of(), false,
                dir.resolve("envs"), m, System.getenv());
        ToolchainResolver.Choice rust = e.toolchains().stream().filter(c -> c.language().equals("rust") && c.used() != null)
                .findFirst().orElse(null);
        assumeTrue(rust != null, "no rust toolchain installed (rustup)");
        Path cargo = rust.bin().get(0).resolve("cargo");
        Path ws = crate(dir.resolve("workspace"));
        try (var lock = ExecEnvironments.lock(e)) {
            e = ExecEnvironments.provision(e, new StringBuilder());
        }
        StringBuilder log = new StringBuilder();
        e = ExecEnvironments.afterSetup(e, ws, log);
        assumeTrue(e.warnings().stream().noneMatch(w -> w.contains("cargo fetch failed") && w.contains("resolve")),
                "crates.io is not reachable: " + e.warnings());
        assertThat(e.warnings()).noneMatch(w -> w.contains("cargo fetch"));

        // Grading's tree is a copy; the registry is unreachable there (a bogus index forces that here too).
        Path grade = crate(dir.resolve("grade-1"));
        Files.copy(ws.resolve("Cargo.lock"), grade.resolve("Cargo.lock"));
        Map<String, String> env = new java.util.HashMap<>(e.forGrading(Files.createDirectories(dir.resolve("results"))));
        env.put("CARGO_TARGET_DIR", dir.resolve("target").toString());
        env.put("CARGO_REGISTRIES_CRATES_IO_PROTOCOL", "sparse");
        env.put("CARGO_HTTP_PROXY", "http://127.0.0.1:9");
        ExecEnvironments.Out o = ExecEnvironments.run(List.of(cargo.toString(), "test"), env, grade, Duration.ofMinutes(10));
        assertThat(o.code()).as(o.text()).isZero();
        assertThat(o.text()).contains("test result: ok. 1 passed");
    }

    @Test
    void gradingStartsFromTheCratesSetupCompiled(@TempDir Path dir) throws Exception {
        // starship: grading compiled the whole crate graph setup had already compiled, and timed out at 120 s
        ExecEnvironment e = ExecEnvironments.plan("cargo-warm-test", "k", Map.of("rust", "stable"), Map.of(), false,
                dir.resolve("envs"), InstalledToolchains.machine(), System.getenv());
        ToolchainResolver.Choice rust = e.toolchains().stream().filter(c -> c.language().equals("rust") && c.used() != null)
                .findFirst().orElse(null);
        assumeTrue(rust != null, "no rust toolchain installed (rustup)");
        Path ws = crate(dir.resolve("workspace"));
        try (var lock = ExecEnvironments.lock(e)) {
            e = ExecEnvironments.provision(e, new StringBuilder());
        }
        StringBuilder log = new StringBuilder();
        e = ExecEnvironments.afterSetup(e, ws, log, "set -e\ncargo test --no-fail-fast --lib -- --test-threads 1\n", Duration.ofMinutes(10));
        assumeTrue(e.warnings().stream().noneMatch(w -> w.contains("cargo fetch failed") && w.contains("resolve")),
                "crates.io is not reachable: " + e.warnings());
        assertThat(e.warnings()).as(log.toString()).isEmpty();
        assertThat(log).contains("$ cargo test --lib --no-run").contains("Compiling itoa");
        assertThat(e.warmCargoTarget()).isPresent();

        // what Episode does before each grading: a fresh copy of the prefix's target as grading's CARGO_TARGET_DIR
        Path home = Files.createDirectories(dir.resolve("results/home"));
        dev.crucible.verifier.pristine.TreeCopy.copy(e.warmCargoTarget().get(), ExecEnvironment.gradingCargoTarget(home));
        Path grade = crate(dir.resolve("grade-1"));
        Files.copy(ws.resolve("Cargo.lock"), grade.resolve("Cargo.lock"));
        Map<String, String> env = e.forGrading(home);
        assertThat(env).containsEntry("CARGO_TARGET_DIR", ExecEnvironment.gradingCargoTarget(home).toString());
        ExecEnvironments.Out o = ExecEnvironments.run(List.of(rust.bin().get(0).resolve("cargo").toString(), "test", "--lib"), env, grade, Duration.ofMinutes(10));
        assertThat(o.code()).as(o.text()).isZero();
        assertThat(o.text()).contains("Compiling offline-probe").doesNotContain("Compiling itoa").contains("test result: ok. 1 passed");
    }

    @Test
    void theWarmupTakesTheVerifiersPackageAndFeatureFlags() {
        assertThat(CargoWarmup.arguments("set -e\n# step 4\ncargo test --locked --all --no-fail-fast -- --nocapture\n"))
                .containsExactly("test", "--locked", "--all", "--no-run");
        assertThat(CargoWarmup.arguments("RUST_BACKTRACE=1 cargo +stable test -p core --features full -q | tee out.txt"))
                .containsExactly("test", "-p", "core", "--features", "full", "--no-run");
        assertThat(CargoWarmup.arguments("make test")).containsExactly("test", "--no-run");
        assertThat(CargoWarmup.arguments(null)).containsExactly("test", "--no-run");
    }

    private static Path crate(Path root) throws Exception {
        Files.createDirectories(root.resolve("src"));
        Files.writeString(root.resolve("Cargo.toml"), "[package]\nname = \"offline-probe\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n"
                + "[dependencies]\nitoa = \"1\"\n");
        Files.writeString(root.resolve("src/lib.rs"), "pub fn show(n: u32) -> String { itoa::Buffer::new().format(n).to_string() }\n"
                + "#[cfg(test)] mod t { #[test] fn shows() { assert_eq!(super::show(42), \"42\"); } }\n");
        return root;
    }
}
