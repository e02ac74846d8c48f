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
        String proxy = configuredProxy(m);
        assumeTrue(GoToolchains.newestPatch("1.22", proxy).isPresent(), "the Go module proxy " + proxy + " is not reachable");
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
    void aBareMinorTakesItsNewestPatch() throws Exception {
        InstalledToolchains m = InstalledToolchains.machine();
        assumeTrue(m.go() != null, "go is not installed");
        String proxy = configuredProxy(m);
        assumeTrue(GoToolchains.newestPatch("1.22", proxy).isPresent(), "the Go module proxy " + proxy + " is not reachable");
        assertThat(GoToolchains.newestPatch("1.22", proxy).orElseThrow()).matches("1\\.22\\.\\d+");
        assertThat(GoToolchains.newestPatch("1.99", proxy)).isEmpty();
    }

    /** A GOPROXY list gives its first http(s) entry; a list with none (off, direct, file://) gives no proxy. */
    @Test
    void theProxyIsTheFirstHttpEntryOfTheConfiguredList() {
        assertThat(GoToolchains.firstHttp("https://mirror.example.internal/go/,direct")).contains("https://mirror.example.internal/go");
        assertThat(GoToolchains.firstHttp("file:///srv/mods|http://10.0.0.5:3000")).contains("http://10.0.0.5:3000");
        assertThat(GoToolchains.firstHttp("direct")).isEmpty();
        assertThat(GoToolchains.firstHttp("off")).isEmpty();
    }

    /**
     * A bare minor ("1.25.x", lazygit's) is still unresolved in the environment's GOTOOLCHAIN when the proxy is asked for:
     * the proxy is read with go's own configuration all the same, not reported as missing.
     */
    @Test
    void theProxyIsReadWhileTheWantedReleaseIsABareMinor() throws Exception {
        InstalledToolchains m = InstalledToolchains.machine();
        assumeTrue(m.go() != null, "go is not installed");
        assumeTrue(System.getenv().getOrDefault("GOPROXY", "").isBlank(), "GOPROXY is set in this process: go's configuration is not read");
        String proxy = configuredProxy(m);
        ExecEnvironment e = ExecEnvironments.plan("go-proxy-test", "k", Map.of("go", "1.22.x"), Map.of("GOFLAGS", "-mod=vendor"), false,
                ExecEnvironments.cacheRoot(), m, System.getenv());
        assertThat(e.vars()).containsEntry("GOTOOLCHAIN", "go1.22.x");
        java.nio.file.Files.createDirectories(e.prefix().resolve("home"));
        assertThat(GoToolchains.proxy(e, m.go().goroot().resolve("bin/go").toString())).contains(proxy);
    }

    /** The proxy as this machine's go is configured (never a host written into the test). */
    private static String configuredProxy(InstalledToolchains m) throws Exception {
        String env = System.getenv().getOrDefault("GOPROXY", "");
        if (env.isBlank()) {
            ExecEnvironments.Out o = ExecEnvironments.run(List.of(m.go().goroot().resolve("bin/go").toString(), "env", "GOPROXY"),
                    System.getenv(), Path.of("."), Duration.ofSeconds(30));
            env = o.text().strip();
        }
        var p = GoToolchains.firstHttp(env);
        assumeTrue(p.isPresent(), "no Go module proxy is configured (GOPROXY / go env GOPROXY: " + env + ")");
        return p.get();
    }
}
