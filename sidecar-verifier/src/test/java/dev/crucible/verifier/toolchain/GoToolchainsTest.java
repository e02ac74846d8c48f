package dev.crucible.verifier.toolchain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A pinned Go release that is not installed is fetched through the Go module proxy's toolchain
 * modules into the environment's prefix, and every phase then runs that release (the prefix is
 * reused, so this downloads once per machine).
 */
@Timeout(900)
class GoToolchainsTest {

    @Test
    void anExactGoReleaseComesFromTheModuleProxy() throws Exception {
        InstalledToolchains m = InstalledToolchains.machine();
        assumeTrue(m.go() != null, "go is not installed");
        assumeTrue(GoToolchains.newestPatch("1.22", "https://proxy.golang.org").isPresent(), "the Go module proxy is not reachable");
        String wanted = m.go().version().toString().equals("1.22.5") ? "1.22.4" : "1.22.5";
        ExecEnvironment e = ExecEnvironments.plan("go-toolchain-test", "k", Map.of("go", wanted), Map.of(), false,
                ExecEnvironments.cacheRoot(), m, System.getenv());
        try (var lock = ExecEnvironments.lock(e)) {
            e = ExecEnvironments.provision(e, new StringBuilder());
        }
        assertThat(e.warnings()).isEmpty();
        assertThat(e.vars()).containsEntry("GOTOOLCHAIN", "go" + wanted);
        Path go = m.go().goroot().resolve("bin/go");
        for (Map<String, String> env : List.of(e.forSetup(), e.forAgent(e.setupHome().toString()), e.forGrading(e.setupHome()))) {
            ExecEnvironments.Out o = ExecEnvironments.run(List.of(go.toString(), "version"), env, e.prefix(), Duration.ofMinutes(2));
            assertThat(o.text()).contains("go version go" + wanted + " ");
        }
    }

    @Test
    void aBareMinorTakesItsNewestPatch() {
        assumeTrue(GoToolchains.newestPatch("1.22", "https://proxy.golang.org").isPresent(), "the Go module proxy is not reachable");
        assertThat(GoToolchains.newestPatch("1.22", "https://proxy.golang.org").orElseThrow()).matches("1\\.22\\.\\d+");
        assertThat(GoToolchains.newestPatch("1.99", "https://proxy.golang.org")).isEmpty();
    }
}
