package dev.crucible.cli.derive;

import static dev.crucible.cli.derive.BuiltRepos.write;
import static dev.crucible.cli.derive.CliInProcess.cli;
import static dev.crucible.cli.derive.CliInProcess.sh;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.crucible.cli.derive.CliInProcess.Result;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 35.3, pallets' CI shape: setup-uv, then {@code TOX_ENV=py3.X uv run --locked --no-default-groups --group dev tox
 * run}, with no install step (uv syncs on demand) and tox configured in pyproject.toml with tox-uv's lock runner.
 * Before, grading failed with "Failed to spawn: tox" (nothing synced, grading offline) and, had tox run, it would
 * have built its environment under a read-only tree without the network. derive now runs the tox environment's
 * commands after {@code uv sync --locked} of its groups in setup; {@code --baseline} runs it twice for real, per test.
 */
@Timeout(1200)
class DeriveUvToxProjectTest {
    @TempDir
    Path dir;

    @Test
    void uvRunToxWithALockRunnerIsSyncedInSetupAndGradedPerTest() throws Exception {
        Path repo = dir.resolve("demo");
        write(repo, ".github/workflows/tests.yaml", """
                on: [push]
                jobs:
                  tests:
                    runs-on: ubuntu-latest
                    strategy:
                      matrix:
                        include:
                          - {python: '3.11'}
                    steps:
                      - uses: actions/checkout@v4
                      - uses: astral-sh/setup-uv@v6
                      - uses: actions/setup-python@v5
                        with:
                          python-version: ${{ matrix.python }}
                      - run: uv run --locked --no-default-groups --group dev tox run
                        env:
                          TOX_ENV: ${{ matrix.tox || format('py{0}', matrix.python) }}
                  typing:
                    runs-on: ubuntu-latest
                    steps:
                      - uses: astral-sh/setup-uv@v6
                      - run: uv run --locked --no-default-groups --group dev tox run -e typing
                """);
        write(repo, "pyproject.toml", """
                [project]
                name = "demo"
                version = "0.1"
                requires-python = ">=3.9"

                [dependency-groups]
                dev = ["pytest", "tox", "tox-uv"]
                tests = ["pytest"]

                [build-system]
                requires = ["hatchling"]
                build-backend = "hatchling.build"

                [tool.tox]
                env_list = ["py3.11", "typing"]

                [tool.tox.env_run_base]
                runner = "uv-venv-lock-runner"
                package = "wheel"
                dependency_groups = ["tests"]
                commands = [[
                    "pytest", "-v", "--tb=short", "--basetemp={env_tmp_dir}",
                    {replace = "posargs", default = [], extend = true},
                ]]

                [tool.tox.env.typing]
                commands = [["mypy"]]
                """);
        write(repo, "src/demo/__init__.py", "def add(a, b):\n    return a + b\n");
        write(repo, "tests/test_demo.py", """
                from demo import add


                def test_add():
                    assert add(1, 2) == 3


                def test_zero():
                    assert add(0, 0) == 0


                def test_drifted():
                    assert add(1, 1) == 3, "what an old release gave"
                """);
        write(repo, ".gitignore", ".venv/\n__pycache__/\n.tox/\n");
        // the lock file the project commits: made with uv from the machine's package index, as a developer would
        Path tools = dir.resolve("uv-tool");
        assumeTrue(sh(dir, "python3 -m venv " + tools + " && " + tools + "/bin/pip install -q uv") == 0,
                "uv could not be installed from the package index (python3 -m venv + pip install uv)");
        assumeTrue(sh(repo, tools + "/bin/uv lock -q") == 0, "uv lock needs the package index");
        assertThat(sh(repo, "rm -rf .venv && git init -q -b main && git add -A && git -c user.name=t -c user.email=t@example.com commit -qm init")).isZero();

        Path manifest = dir.resolve("env.yaml");
        Result derive = cli("derive", "--repo", repo.toString(), "--commit", "HEAD", "--workflow", "tests.yaml", "--baseline",
                "-o", manifest.toString());
        assertThat(derive.exit()).as(derive.out() + derive.err()).isZero();
        String text = Files.readString(manifest);
        assertThat(text).contains("uv sync --locked --no-default-groups --group tests").contains("uv: '*'");
        JsonNode v = new YAMLMapper().readTree(manifest.toFile()).path("spec").path("verifier");
        assertThat(v.path("command").asText()).endsWith("pytest -v --tb=short").doesNotContain("tox");
        // per test, at the commit, twice: the drifted test is excluded by name, the others are passToPass
        assertThat(derive.err()).contains("3 tests, 2 pass both times (passToPass), 1 excluded");
        assertThat(v.path("passToPass").toString()).contains("tests/test_demo.py::test_add", "tests/test_demo.py::test_zero")
                .doesNotContain("test_drifted");
        assertThat(v.path("excludedTests").toString()).contains("tests/test_demo.py::test_drifted");

        JsonNode breaking = run(manifest, "printf 'def add(a, b):\\n    return a - b\\n' > src/demo/__init__.py", "breaking");
        assertThat(breaking.path("reward").asDouble()).as(breaking.toString()).isEqualTo(0.0);
        assertThat(breaking.path("tests").path("details").toString()).as(breaking.toString()).contains("tests/test_demo.py::test_add");
    }

    private JsonNode run(Path manifest, String agent, String name) throws IOException {
        return CliInProcess.run(dir, manifest, agent, name);
    }
}
