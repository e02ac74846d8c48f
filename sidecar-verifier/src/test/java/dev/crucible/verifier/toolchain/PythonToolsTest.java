package dev.crucible.verifier.toolchain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 35.3: Python project tools are provisioned from the package index like the other toolchains, and a
 * uv project set up with {@code uv sync --locked} is graded with {@code uv run --locked pytest} offline.
 */
@Timeout(900)
class PythonToolsTest {
    @Test
    void versionsBecomePipRequirementsAndBadOnesNameTheField() {
        assertThat(PythonTools.requirement("uv", "latest")).isEqualTo("uv");
        assertThat(PythonTools.requirement("uv", null)).isEqualTo("uv");
        assertThat(PythonTools.requirement("uv", "0.5.4")).isEqualTo("uv==0.5.4");
        assertThat(PythonTools.requirement("poetry", "1.8.x")).isEqualTo("poetry==1.8.*");
        assertThat(PythonTools.requirement("tox", ">=4, <5")).isEqualTo("tox>=4,<5");
        assertThatThrownBy(() -> PythonTools.requirement("uv", "main; rm -rf /"))
                .hasMessageContaining("spec.setup.toolchains.uv").hasMessageContaining("not a version");
    }

    @Test
    void theIndexComesFromPipsConfigurationForPipUvAndPdm() {
        String list = "global.index-url='http://mirror.invalid/simple'\nglobal.cert='/etc/ca.pem'\n"
                + ":env:.find-links='/opt/a /opt/b'\ninstall.index-url='http://other.invalid/simple'\nglobal.timeout='60'\n";
        Map<String, String> v = PythonTools.indexVars(list, List.of("uv", "pdm"));
        assertThat(v).containsEntry("PIP_INDEX_URL", "http://other.invalid/simple") // install. after global. wins, as in pip
                .containsEntry("UV_INDEX_URL", "http://other.invalid/simple")
                .containsEntry("UV_FIND_LINKS", "/opt/a,/opt/b").containsEntry("SSL_CERT_FILE", "/etc/ca.pem")
                .containsEntry("PDM_PYPI_URL", "http://other.invalid/simple").doesNotContainKey("PIP_TIMEOUT");
        assertThat(PythonTools.indexVars("", List.of("uv"))).isEmpty();
    }

    @Test
    void aToolIsAToolchainNotAWarning() {
        ToolchainResolver.Resolution r = ToolchainResolver.resolve(Map.of("uv", "0.5.x", "pnpm", "9"), InstalledToolchains.machine());
        assertThat(r.warnings()).noneMatch(w -> w.contains("uv")).anyMatch(w -> w.contains("pnpm 9: not provisioned"));
        if (r.python() != null) assertThat(r.choices()).anySatisfy(c -> assertThat(c.language() + " " + c.used()).isEqualTo("uv uv==0.5.*"));
        ToolchainResolver.Resolution bad = ToolchainResolver.resolve(Map.of("poetry", "tip"), InstalledToolchains.machine());
        assertThat(bad.warnings()).anyMatch(w -> w.contains("spec.setup.toolchains.poetry: 'tip'"));
    }

    @Test
    void aToolWithABadVersionIsAWarningAtProvisioningNotAFailure(@TempDir Path dir) throws Exception {
        ExecEnvironment e = ExecEnvironments.plan("bad-tool-test", "k", Map.of("poetry", "tip"), Map.of(), false,
                dir.resolve("envs"), InstalledToolchains.machine(), System.getenv());
        ExecEnvironment p = ExecEnvironments.provision(e, new StringBuilder());
        assertThat(p.warnings()).anyMatch(w -> w.contains("spec.setup.toolchains.poetry"));
        assertThat(PythonTools.binDir(p.prefix()).resolve("poetry")).doesNotExist();
    }

    @Test
    void uvIsProvisionedAndItsLockedFlowRunsOfflineAfterSetup(@TempDir Path dir) throws Exception {
        ExecEnvironment e = ExecEnvironments.plan("uv-tools-test", "k", Map.of("python", "3", "uv", "latest"), Map.of(), true,
                dir.resolve("envs"), InstalledToolchains.machine(), System.getenv());
        assumeTrue(e.venv() != null, "no Python 3 interpreter installed");
        StringBuilder log = new StringBuilder();
        try (var lock = ExecEnvironments.lock(e)) {
            e = ExecEnvironments.provision(e, log);
        }
        assumeTrue(e.warnings().stream().noneMatch(w -> w.startsWith("uv") && w.contains("could not be installed")),
                "uv could not be installed from the package index: " + e.warnings());
        assertThat(PythonTools.binDir(e.prefix()).resolve("uv")).isExecutable();
        assertThat(e.path()).contains(PythonTools.binDir(e.prefix()).toString());

        Path ws = project(dir.resolve("workspace"));
        Map<String, String> setup = e.forSetup();
        ExecEnvironments.Out lockOut = ExecEnvironments.run(List.of("bash", "-c", "uv lock"), setup, ws, Duration.ofMinutes(5));
        assumeTrue(lockOut.code() == 0, "uv lock needs the package index: " + lockOut.tail());
        ExecEnvironments.Out sync = ExecEnvironments.run(List.of("bash", "-c", "uv sync --locked"), setup, ws, Duration.ofMinutes(5));
        assertThat(sync.code()).as(sync.text()).isZero();
        e = ExecEnvironments.afterSetup(e, ws, new StringBuilder());
        // uv installed the project's dependencies into the environment's venv, where grading's runners look
        assertThat(e.venv().resolve("bin/pytest")).isExecutable();

        // Grading: another tree, no index (a dead proxy), uv's cache elsewhere.
        Path grade = project(dir.resolve("grade-1"));
        Files.copy(ws.resolve("uv.lock"), grade.resolve("uv.lock"));
        Map<String, String> env = new HashMap<>(e.forGrading(Files.createDirectories(dir.resolve("results"))));
        for (String k : List.of("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy")) env.put(k, "http://127.0.0.1:9");
        assertThat(env).containsEntry("UV_OFFLINE", "1").containsEntry("UV_NO_SYNC", "1");
        ExecEnvironments.Out run = ExecEnvironments.run(List.of("bash", "-c", "uv run --locked pytest -q -p no:cacheprovider"), env, grade, Duration.ofMinutes(5));
        assertThat(run.code()).as(run.text()).isZero();
        assertThat(run.text()).contains("1 passed");
    }

    private static Path project(Path root) throws Exception {
        Files.createDirectories(root.resolve("src/demo"));
        Files.createDirectories(root.resolve("tests"));
        Files.writeString(root.resolve("pyproject.toml"), """
                [project]
                name = "demo"
                version = "0.1"
                requires-python = ">=3.8"
                dependencies = ["iniconfig"]
                [dependency-groups]
                dev = ["pytest"]
                [build-system]
                requires = ["hatchling"]
                build-backend = "hatchling.build"
                """);
        Files.writeString(root.resolve("src/demo/__init__.py"), "import iniconfig\ndef add(a, b):\n    return a + b\n");
        Files.writeString(root.resolve("tests/test_demo.py"), "from demo import add\ndef test_add():\n    assert add(1, 2) == 3\n");
        return root;
    }
}
