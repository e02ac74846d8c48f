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
 * Two environments that pin the same Go release (lazygit's and caddy's go.mod both name a 1.25 patch the machine does
 * not have): the first fetches it through the Go module proxy, the second finds the machine's copy and runs the
 * release without fetching it (go prints "go: downloading" when it fetches).
 */
@Timeout(900)
class GoToolchainCacheTest {
    @Test
    void aReleaseIsFetchedOncePerMachine(@TempDir Path dir) throws Exception {
        InstalledToolchains m = InstalledToolchains.machine();
        assumeTrue(m.go() != null, "go is not installed");
        String proxyList = System.getenv().getOrDefault("GOPROXY", "");
        if (proxyList.isBlank()) {
            proxyList = ExecEnvironments.run(List.of(m.go().goroot().resolve("bin/go").toString(), "env", "GOPROXY"),
                    System.getenv(), Path.of("."), Duration.ofSeconds(30)).text().strip();
        }
        var proxy = GoToolchains.firstHttp(proxyList);
        assumeTrue(proxy.isPresent() && GoToolchains.newestPatch("1.22", proxy.get()).isPresent(), "no reachable Go module proxy");
        String wanted = m.go().version().toString().equals("1.22.5") ? "1.22.4" : "1.22.5";
        Path envs = dir.resolve("envs");

        ExecEnvironment first = ExecEnvironments.plan("go-cache-a", "a", Map.of("go", wanted), Map.of(), false, envs, m, System.getenv());
        StringBuilder log1 = new StringBuilder();
        first = ExecEnvironments.provision(first, log1);
        assertThat(first.warnings()).as(log1.toString()).isEmpty();
        assertThat(log1.toString()).contains("go: downloading go" + wanted).contains("kept go" + wanted);
        assertThat(GoToolchainCache.shared(first.prefix(), "go" + wanted)).isDirectory();

        ExecEnvironment second = ExecEnvironments.plan("go-cache-b", "b", Map.of("go", wanted), Map.of(), false, envs, m, System.getenv());
        assertThat(second.prefix()).isNotEqualTo(first.prefix());
        StringBuilder log2 = new StringBuilder();
        second = ExecEnvironments.provision(second, log2);
        assertThat(second.warnings()).as(log2.toString()).isEmpty();
        assertThat(log2.toString()).contains("copied go" + wanted + " from the machine's Go toolchain cache")
                .doesNotContain("go: downloading").contains("go version go" + wanted + " ");
        // the second environment's phases run the release from its own prefix (the boxes see only the prefix)
        Path go = m.go().goroot().resolve("bin/go");
        ExecEnvironments.Out o = ExecEnvironments.run(List.of(go.toString(), "version"), second.forGrading(second.setupHome()), second.prefix(), Duration.ofMinutes(2));
        assertThat(o.text()).contains("go version go" + wanted + " ").doesNotContain("downloading");
        assertThat(GoToolchainCache.moduleCache(second).resolve(GoToolchainCache.toolchainDir("go" + wanted))).isDirectory();
        // module files are read-only: let JUnit delete the folder
        ExecEnvironments.run(List.of("chmod", "-R", "u+w", dir.toString()), System.getenv(), dir, Duration.ofMinutes(2));
        Files.walk(dir).count();
    }
}
