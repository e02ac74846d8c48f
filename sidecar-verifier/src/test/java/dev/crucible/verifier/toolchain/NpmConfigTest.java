package dev.crucible.verifier.toolchain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The environment's own npm prefix must not lose the machine's global npmrc (its cafile here: without
 * it every registry fetch failed SELF_SIGNED_CERT_IN_CHAIN and jshttp/mime-types' npm install retried
 * for minutes). Real npm reads the config in the setup environment.
 */
class NpmConfigTest {
    @Test
    void setupKeepsTheMachinesGlobalNpmrc(@TempDir Path dir) throws Exception {
        InstalledToolchains m = InstalledToolchains.machine();
        ExecEnvironment e = ExecEnvironments.plan("npm-config-test", "k", Map.of("node", "*"), Map.of(), false,
                dir.resolve("envs"), m, System.getenv());
        ToolchainResolver.Choice node = e.toolchains().stream().filter(c -> c.language().equals("node") && c.used() != null)
                .findFirst().orElse(null);
        assumeTrue(node != null, "node is not installed");
        Path npm = node.bin().get(0).resolve("npm");
        Path global = node.bin().get(0).toAbsolutePath().getParent().resolve("etc/npmrc");
        assumeTrue(Files.isExecutable(npm) && Files.isRegularFile(global), "npm or the machine's global npmrc (" + global + ") is missing");
        ExecEnvironments.Out machine = ExecEnvironments.run(List.of(npm.toString(), "config", "get", "globalconfig"), System.getenv(), dir, Duration.ofMinutes(1));
        assertThat(machine.text()).contains(global.toString());
        Files.createDirectories(e.setupHome());

        ExecEnvironments.Out o = ExecEnvironments.run(List.of(npm.toString(), "config", "get", "globalconfig"), e.forSetup(), dir, Duration.ofMinutes(1));

        assertThat(e.forSetup()).containsEntry("NPM_CONFIG_PREFIX", e.prefix().resolve("npm").toString());
        assertThat(o.text()).contains(global.toString());
    }
}
