package dev.crucible.verifier.toolchain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Toolchain requests against this machine's real installs, and every substitution as a warning. */
class ToolchainResolverTest {
    private static final InstalledToolchains M = InstalledToolchains.machine();

    private static ToolchainResolver.Choice choice(ToolchainResolver.Resolution r, String lang) {
        return r.choices().stream().filter(c -> c.language().equals(lang)).findFirst().orElseThrow();
    }

    @Test
    void anAbsentPythonGetsTheNearestInstalledAndAWarning() {
        assumeTrue(!M.pythons().isEmpty(), "no Python interpreter installed");
        Version newest = M.pythons().stream().map(InstalledToolchains.Python::version).max(Comparator.naturalOrder()).orElseThrow();
        ToolchainResolver.Resolution r = ToolchainResolver.resolve(Map.of("python", "3.99"), M);
        assertThat(choice(r, "python").used()).isEqualTo(newest.toString());
        assertThat(r.python().version()).isEqualTo(newest);
        assertThat(r.warnings()).anySatisfy(w -> assertThat(w).contains("python 3.99 is not installed").contains("nearest, " + newest));
    }

    @Test
    void anInstalledPythonIsUsedWithoutAWarning() {
        assumeTrue(!M.pythons().isEmpty(), "no Python interpreter installed");
        InstalledToolchains.Python p = M.pythons().get(0);
        String minor = p.version().part(0) + "." + p.version().part(1);
        ToolchainResolver.Resolution r = ToolchainResolver.resolve(Map.of("python", minor), M);
        assertThat(choice(r, "python").used()).startsWith(minor);
        assertThat(r.warnings()).isEmpty();
        assertThat(choice(r, "python").bin().get(0).resolve("python3")).exists();
    }

    @Test
    void goPinsAnExactReleaseThroughGotoolchainOrWarnsForOldOnes() {
        assumeTrue(M.go() != null, "go not installed");
        ToolchainResolver.Resolution r = ToolchainResolver.resolve(Map.of("go", "1.22.5"), M);
        assertThat(choice(r, "go").env()).containsEntry("GOTOOLCHAIN", "go1.22.5");
        assertThat(choice(r, "go").goToolchain()).isEqualTo("go1.22.5");
        ToolchainResolver.Resolution old = ToolchainResolver.resolve(Map.of("go", "1.19"), M);
        assertThat(choice(old, "go").env()).containsEntry("GOTOOLCHAIN", "local");
        assertThat(old.warnings()).anySatisfy(w -> assertThat(w).contains("go 1.19").contains("installed " + M.go().version()));
        ToolchainResolver.Resolution same = ToolchainResolver.resolve(Map.of("go", M.go().version().toString()), M);
        assertThat(same.warnings()).isEmpty();
    }

    @Test
    void rustNightlyIsTheInstalledNightlyAndAPinnedOldReleaseIsASubstitution() {
        assumeTrue(M.rusts().stream().anyMatch(x -> x.channel().equals("nightly")), "no rustup nightly installed");
        ToolchainResolver.Resolution r = ToolchainResolver.resolve(Map.of("rust", "nightly"), M);
        assertThat(choice(r, "rust").env().get("RUSTUP_TOOLCHAIN")).startsWith("nightly-");
        assertThat(r.warnings()).isEmpty();
        assertThat(choice(r, "rust").bin().get(0).resolve("cargo")).exists();
        ToolchainResolver.Resolution old = ToolchainResolver.resolve(Map.of("rust", "1.60"), M);
        assertThat(old.warnings()).anySatisfy(w -> assertThat(w).contains("rust 1.60 is not installed"));
    }

    @Test
    void rustStableIsTheStableChannelEvenWhenRustupsDefaultIsPinnedOlder() {
        // this machine's rustup default is 1.85.0; bat needs rust-version 1.88 and CI's "stable" is today's
        Path dir = Path.of("/nonexistent");
        InstalledToolchains pinned = new InstalledToolchains(M.pythons(), M.defaultPython(), M.go(), List.of(
                new InstalledToolchains.Rust("1.85.0-x86_64-unknown-linux-gnu", "1.85.0", Version.parse("1.85.0").orElseThrow(), dir),
                new InstalledToolchains.Rust("stable-x86_64-unknown-linux-gnu", "stable", Version.parse("1.95.0").orElseThrow(), dir)),
                "1.85.0-x86_64-unknown-linux-gnu", dir, M.nodes());
        assertThat(choice(ToolchainResolver.resolve(Map.of("rust", "stable"), pinned), "rust").env().get("RUSTUP_TOOLCHAIN"))
                .isEqualTo("stable-x86_64-unknown-linux-gnu");
        assertThat(choice(ToolchainResolver.resolve(Map.of("rust", "*"), pinned), "rust").env().get("RUSTUP_TOOLCHAIN"))
                .as("any: the machine's default, as before").isEqualTo("1.85.0-x86_64-unknown-linux-gnu");
    }

    @Test
    void nodeAndUnknownToolchains() {
        assumeTrue(!M.nodes().isEmpty(), "node not installed");
        ToolchainResolver.Resolution r = ToolchainResolver.resolve(Map.of("node", "4.x", "pnpm", "9"), M);
        assertThat(r.warnings()).anySatisfy(w -> assertThat(w).contains("node 4.x is not installed"))
                .anySatisfy(w -> assertThat(w).contains("toolchain pnpm 9: not provisioned"));
        String major = Integer.toString(M.nodes().get(0).version().part(0));
        assertThat(ToolchainResolver.resolve(Map.of("node", major + ".x"), M).warnings()).isEmpty();
    }

    @Test
    void versionsMatchByTheirGivenParts() {
        assertThat(Version.parse("3.11.7").orElseThrow().matches(Version.parse("3.11").orElseThrow())).isTrue();
        assertThat(Version.parse("3.1.7").orElseThrow().matches(Version.parse("3.11").orElseThrow())).isFalse();
        assertThat(Version.parse("18.x").orElseThrow()).isEqualTo(Version.parse("18").orElseThrow());
        assertThat(Version.parse("go1.22.5").orElseThrow().toString()).isEqualTo("1.22.5");
        assertThat(Version.parse("pypy3.9")).isEmpty();
        List<Version> installed = List.of(Version.parse("3.9.1").orElseThrow(), Version.parse("3.12.1").orElseThrow());
        assertThat(Version.nearest(Version.parse("3.11").orElseThrow(), installed, v -> v).orElseThrow().toString()).isEqualTo("3.12.1");
    }

    /** Pytest plugins are read from entry_points.txt; one added after setup is drift (a finding at grading). */
    @Test
    void pluginsAddedAfterSetupAreDrift(@TempDir Path site) throws Exception {
        Path d = Files.createDirectories(site.resolve("pytest_httpbin-2.0.dist-info"));
        Files.writeString(d.resolve("entry_points.txt"), "[console_scripts]\nx = y:z\n\n[pytest11]\nhttpbin = pytest_httpbin.plugin\n");
        ExecEnvironment e = ExecEnvironments.plan("t", "k", Map.of(), Map.of(), false, site.resolve("cache"), M, Map.of("PATH", "/usr/bin:/bin"));
        e = e.withPlugins(List.of(site), PytestPlugins.in(List.of(site)));
        assertThat(e.pytestPlugins()).containsExactly("httpbin=pytest_httpbin.plugin");
        assertThat(e.forGrading(site.resolve("home"))).containsEntry("PYTEST_PLUGINS", "pytest_httpbin.plugin")
                .containsEntry("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1");
        assertThat(ExecEnvironments.pluginDrift(e)).isEmpty();
        Path evil = Files.createDirectories(site.resolve("forge-1.0.dist-info"));
        Files.writeString(evil.resolve("entry_points.txt"), "[pytest11]\nforge = forge_plugin\n");
        assertThat(ExecEnvironments.pluginDrift(e)).containsExactly("+forge=forge_plugin");
    }

    @Test
    void setupAgentAndGradingShareOnePathAndSetupEnv(@TempDir Path cache) {
        ExecEnvironment e = ExecEnvironments.plan("t", "k", Map.of(), Map.of("GITHUB_ACTIONS", "true"), false, cache, M,
                Map.of("PATH", "/root/.pyenv/shims:/usr/local/bin:/usr/bin:/bin"));
        Map<String, String> setup = e.forSetup();
        Map<String, String> agent = e.forAgent("/tmp/home");
        Map<String, String> grading = e.forGrading(cache.resolve("results/home"));
        for (Map<String, String> m : List.of(setup, agent, grading)) {
            assertThat(m.get("PATH")).isEqualTo(setup.get("PATH")).doesNotContain("/shims");
            assertThat(m).containsEntry("GITHUB_ACTIONS", "true").containsEntry("GOPATH", e.prefix().resolve("go").toString())
                    .containsEntry("CARGO_HOME", e.prefix().resolve("cargo").toString());
        }
        // Go writes its build cache on every build: setup warms the prefix's, the agent and grading write their own
        assertThat(setup).containsEntry("GOCACHE", e.prefix().resolve("gocache").toString());
        assertThat(agent).containsEntry("GOCACHE", "/tmp/home/.cache/go-build");
        assertThat(grading).containsEntry("GOCACHE", cache.resolve("results/home/go-build").toString())
                .containsEntry("CARGO_TARGET_DIR", cache.resolve("results/home/cargo-target").toString()); // the tree is read-only
        assertThat(setup.get("HOME")).isEqualTo(e.prefix().resolve("home").toString());
        assertThat(e.prefix().getParent()).isEqualTo(cache);
    }
}
