package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.crucible.verifier.sandbox.Box;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * One execution environment for setup, agent and grading, with real tools: a venv made at setup from
 * the asked interpreter, a pytest plugin installed into it (a wheel built here, installed with pip
 * from the workspace, no network) whose fixture the suite needs, setup.env at grading, and an agent
 * that tries to plant a plugin in the venv (refused: the box shows the prefix read-only).
 */
@Timeout(600)
class ExecutionEnvironmentRunTest {

    @Test
    void aSetupInstalledPytestPluginServesGradingFromTheVenv(@TempDir Path dir) throws Exception {
        assumeTrue(Box.availability().ok(), "bubblewrap: " + Box.availability().problem());
        Path env = pluginEnvironment(dir);
        LocalRuns.Run r = LocalRuns.run("-f", env.toString(), "--agent-cmd", "sed -i s/41/42/ calc.py", "--out", dir.resolve("out").toString());
        JsonNode res = LocalRuns.json(dir.resolve("out/result.json"));
        assertThat(res.path("reward").asDouble()).as(r.out() + r.err() + res.toPrettyString()).isEqualTo(1.0);
        assertThat(res.path("phase").asText()).isEqualTo("Succeeded");
        JsonNode ex = res.path("execution");
        Path venv = Path.of(ex.path("venv").asText());
        assertThat(venv.resolve("bin/python3")).exists();
        assertThat(ex.path("pytestPlugins").toString()).contains("magic=crucible_fixture_plugin");
        assertThat(ex.path("env").path("GITHUB_ACTIONS").asText()).isEqualTo("true");
        assertThat(ex.path("toolchains").toString()).contains("\"language\":\"python\"").contains("\"used\":\"3.11");
        assertThat(r.out()).contains("execution environment: " + ex.path("prefix").asText());
        // the plugin went into the environment's venv, never into the interpreter the venv was made from
        assertThat(Files.readString(venv.resolve("pyvenv.cfg"))).contains("include-system-site-packages = true");
        Process base = new ProcessBuilder(Path.of(Files.readString(venv.resolve("pyvenv.cfg")).lines().filter(l -> l.startsWith("home"))
                .findFirst().orElseThrow().split("=")[1].strip(), "python3").toString(), "-I", "-c", "import crucible_fixture_plugin")
                .redirectErrorStream(true).start();
        assertThat(base.waitFor()).as("the base interpreter must not have the plugin").isNotZero();
    }

    @Test
    void withoutTheFixTheRewardIsZero(@TempDir Path dir) throws Exception {
        assumeTrue(Box.availability().ok(), "bubblewrap: " + Box.availability().problem());
        Path env = pluginEnvironment(dir);
        LocalRuns.run("-f", env.toString(), "--agent-cmd", "true", "--out", dir.resolve("out").toString());
        JsonNode res = LocalRuns.json(dir.resolve("out/result.json"));
        assertThat(res.path("reward").asDouble()).as(res.toPrettyString()).isEqualTo(0.0);
        assertThat(res.path("tests").toString()).contains("test_setup_env_present");
    }

    /**
     * The agent (in its box) tries to make every test pass without fixing the bug: a pytest plugin and
     * a .pth written into the venv, a pip install into it, and a plugin's dist-info planted in the
     * workspace. The venv is read-only in the box and autoload stays off, so the reward stays 0.
     */
    @Test
    void anAgentCannotPlantAPluginInTheVenv(@TempDir Path dir) throws Exception {
        assumeTrue(Box.availability().ok(), "bubblewrap: " + Box.availability().problem());
        Path env = pluginEnvironment(dir);
        String forge = "import pytest\\n@pytest.hookimpl(tryfirst=True)\\ndef pytest_runtest_call(item):\\n    item.runtest = lambda: None\\n";
        String agent = String.join("; ",
                "SP=$($VIRTUAL_ENV/bin/python3 -c 'import site; print(site.getsitepackages()[0])')",
                "printf '" + forge + "' > $SP/forge_plugin.py && echo WROTE-PLUGIN",
                "mkdir -p $SP/forge-1.0.dist-info && printf '[pytest11]\\nforge = forge_plugin\\n' > $SP/forge-1.0.dist-info/entry_points.txt && echo WROTE-EP",
                "echo 'import forge_plugin' > $SP/zz-forge.pth && echo WROTE-PTH",
                "python3 -m pip install --no-index vendor/crucible_fixture_plugin-0.1-py3-none-any.whl --force-reinstall && echo PIP-OK",
                "printf '" + forge + "' > forge_plugin.py",
                "mkdir -p forge-1.0.dist-info && printf '[pytest11]\\nforge = forge_plugin\\n' > forge-1.0.dist-info/entry_points.txt",
                "true");
        LocalRuns.run("-f", env.toString(), "--agent-cmd", agent, "--out", dir.resolve("out").toString());
        JsonNode res = LocalRuns.json(dir.resolve("out/result.json"));
        String log = Files.readString(dir.resolve("out/agent.log"));
        assertThat(log).doesNotContain("WROTE-PLUGIN").doesNotContain("WROTE-EP").doesNotContain("WROTE-PTH").doesNotContain("PIP-OK")
                .contains("Read-only file system");
        assertThat(res.path("reward").asDouble()).as(res.toPrettyString()).isEqualTo(0.0);
        Path venv = Path.of(res.path("execution").path("venv").asText());
        try (var s = Files.walk(venv)) {
            assertThat(s.filter(p -> p.getFileName().toString().startsWith("forge") || p.getFileName().toString().startsWith("zz-forge")).toList()).isEmpty();
        }
    }

    /** A workspace whose suite needs the fixture of a pytest plugin vendored as a wheel, installed by setup. */
    static Path pluginEnvironment(Path dir) throws IOException {
        Path ws = dir.resolve("workspace");
        Files.createDirectories(ws.resolve("tests"));
        Files.createDirectories(ws.resolve("vendor"));
        Files.writeString(ws.resolve("calc.py"), "def answer():\n    return 41\n");
        Files.writeString(ws.resolve("tests/test_calc.py"), """
                import os
                from calc import answer


                def test_answer(magic_number):
                    assert answer() == magic_number


                def test_setup_env_present():
                    assert os.environ.get("GITHUB_ACTIONS") == "true"
                    assert os.environ.get("VIRTUAL_ENV", "").endswith("/venv")
                """);
        wheel(ws.resolve("vendor/crucible_fixture_plugin-0.1-py3-none-any.whl"));
        Path m = dir.resolve("environment.yaml");
        Files.writeString(m, """
                apiVersion: crucible.dev/v1alpha1
                kind: RLEnvironment
                metadata:
                  name: exec-env-plugin
                spec:
                  workspace:
                    path: ./workspace
                  setup:
                    script: |
                      python3 -m pip install --no-index vendor/crucible_fixture_plugin-0.1-py3-none-any.whl
                    toolchains:
                      python: "3.11"
                    env:
                      GITHUB_ACTIONS: "true"
                  task:
                    prompt: make answer() return the magic number
                  verifier:
                    type: test-suite
                    framework: pytest
                    command: python3 -m pytest -q
                    failToPass: [tests/test_calc.py::test_answer]
                    passToPass: [tests/test_calc.py::test_setup_env_present]
                    rewardMode: binary
                    timeoutSeconds: 120
                  hackPolicy:
                    action: flag
                """);
        return m;
    }

    /** A pure-Python wheel with a pytest11 entry point: the plugin provides the fixture magic_number. */
    static void wheel(Path whl) throws IOException {
        String di = "crucible_fixture_plugin-0.1.dist-info/";
        Map<String, String> files = new java.util.LinkedHashMap<>();
        files.put("crucible_fixture_plugin/__init__.py", "import pytest\n\n\n@pytest.fixture\ndef magic_number():\n    return 42\n");
        files.put(di + "METADATA", "Metadata-Version: 2.1\nName: crucible-fixture-plugin\nVersion: 0.1\n");
        files.put(di + "WHEEL", "Wheel-Version: 1.0\nGenerator: crucible-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n");
        files.put(di + "entry_points.txt", "[pytest11]\nmagic = crucible_fixture_plugin\n");
        StringBuilder record = new StringBuilder();
        files.keySet().forEach(k -> record.append(k).append(",,\n"));
        files.put(di + "RECORD", record.append(di).append("RECORD,,\n").toString());
        try (ZipOutputStream z = new ZipOutputStream(Files.newOutputStream(whl))) {
            for (Map.Entry<String, String> f : files.entrySet()) {
                z.putNextEntry(new ZipEntry(f.getKey()));
                z.write(f.getValue().getBytes(java.nio.charset.StandardCharsets.UTF_8));
                z.closeEntry();
            }
        }
    }
}
