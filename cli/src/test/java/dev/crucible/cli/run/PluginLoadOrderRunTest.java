package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.crucible.verifier.sandbox.Box;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two pytest plugins installed at setup, each importing the other's module (as pytest-rerunfailures imports xdist),
 * in a project whose pytest config turns warnings into errors (scrapy). Grading loads setup's plugins one after another
 * through PYTEST_PLUGINS, so pytest warned "Module already imported so cannot be rewritten" for the second and the
 * session stopped before any test: the baseline had no result. A no-op agent on passing tests gets reward 1, through
 * the grader's own pytest bootstrap and through a command of another shape (PYTEST_ADDOPTS).
 */
@Timeout(600)
class PluginLoadOrderRunTest {

    @ParameterizedTest
    @ValueSource(strings = {"python3 -m pytest -q", "CI=1 python3 -m pytest -q"})
    void pluginsThatImportEachOtherDoNotStopAProjectThatErrorsOnWarnings(String command, @TempDir Path dir) throws Exception {
        assumeTrue(Box.availability().ok(), "bubblewrap: " + Box.availability().problem());
        Path ws = Files.createDirectories(dir.resolve("workspace"));
        Files.createDirectories(ws.resolve("tests"));
        Files.createDirectories(ws.resolve("vendor"));
        Files.writeString(ws.resolve("pytest.ini"), "[pytest]\nfilterwarnings =\n    error\n");
        Files.writeString(ws.resolve("tests/test_one.py"), "def test_one(first_value, second_value):\n    assert first_value + second_value == 3\n");
        wheel(ws.resolve("vendor/crucible_first-0.1-py3-none-any.whl"), "crucible_first", "crucible_first/__init__.py",
                "import pytest\nimport crucible_second.plugin  # noqa: F401\n\n\n@pytest.fixture\ndef first_value():\n    return 1\n",
                "first = crucible_first");
        wheel(ws.resolve("vendor/crucible_second-0.1-py3-none-any.whl"), "crucible_second", "crucible_second/plugin.py",
                "import pytest\nimport crucible_first  # noqa: F401\n\n\n@pytest.fixture\ndef second_value():\n    return 2\n",
                "second = crucible_second.plugin");
        Path m = dir.resolve("environment.yaml");
        Files.writeString(m, """
                apiVersion: crucible.dev/v1alpha1
                kind: RLEnvironment
                metadata:
                  name: plugin-load-order
                spec:
                  workspace:
                    path: ./workspace
                  setup:
                    script: |
                      python3 -m pip install --no-index vendor/crucible_first-0.1-py3-none-any.whl vendor/crucible_second-0.1-py3-none-any.whl
                    toolchains:
                      python: "3.11"
                  task:
                    prompt: nothing to do
                  verifier:
                    type: test-suite
                    framework: pytest
                    command: COMMAND
                    passToPass: [tests/test_one.py::test_one]
                    rewardMode: binary
                    timeoutSeconds: 120
                  hackPolicy:
                    action: flag
                """.replace("COMMAND", command));
        LocalRuns.Run r = LocalRuns.run("-f", m.toString(), "--agent-cmd", "true", "--out", dir.resolve("out").toString());
        JsonNode res = LocalRuns.json(dir.resolve("out/result.json"));
        assertThat(res.path("execution").path("pytestPlugins").toString()).contains("crucible_first").contains("crucible_second.plugin");
        assertThat(res.path("reward").asDouble()).as(r.out() + r.err() + res.toPrettyString()).isEqualTo(1.0);
        assertThat(res.path("tests").path("passed").asInt()).isEqualTo(1);
    }

    /** A pure-Python wheel of one module with a pytest11 entry point. */
    private static void wheel(Path whl, String name, String file, String source, String entryPoint) throws IOException {
        String di = name + "-0.1.dist-info/";
        Map<String, String> files = new LinkedHashMap<>();
        if (file.contains("/") && !file.endsWith("__init__.py")) files.put(file.substring(0, file.lastIndexOf('/')) + "/__init__.py", "");
        files.put(file, source);
        files.put(di + "METADATA", "Metadata-Version: 2.1\nName: " + name.replace('_', '-') + "\nVersion: 0.1\n");
        files.put(di + "WHEEL", "Wheel-Version: 1.0\nGenerator: crucible-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n");
        files.put(di + "entry_points.txt", "[pytest11]\n" + entryPoint + "\n");
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
