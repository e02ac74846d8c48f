package dev.crucible.cli.derive;

import static dev.crucible.cli.derive.BuiltRepos.write;
import static dev.crucible.cli.derive.CliInProcess.cli;
import static dev.crucible.cli.derive.CliInProcess.sh;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.crucible.cli.derive.CliInProcess.Result;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 35.3: a uv project whose CI is setup-uv, {@code uv sync --locked}, {@code uv run --locked pytest}. derive
 * asks for uv as a toolchain; {@code crucible run} installs it from the package index (the machine's pip
 * configuration), setup syncs the lock into the environment's venv, and grading runs {@code uv run --locked pytest}
 * offline in its read-only box, per test: a no-op agent gets 1, a breaking one 0. Before, uv was "not provisioned"
 * and setup failed with "uv: command not found" where the machine has no uv.
 */
@Timeout(900)
class DeriveUvProjectTest {
    @TempDir
    Path dir;

    @Test
    void aUvLockedProjectIsSetUpAndGradedOffline() throws Exception {
        Path repo = dir.resolve("demo");
        write(repo, ".github/workflows/ci.yml", """
                on: [push]
                jobs:
                  test:
                    runs-on: ubuntu-latest
                    steps:
                      - uses: actions/checkout@v4
                      - uses: astral-sh/setup-uv@v5
                      - uses: actions/setup-python@v5
                        with:
                          python-version: "3.11"
                      - run: uv sync --locked
                      - run: uv run --locked pytest
                """);
        write(repo, "pyproject.toml", """
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
        write(repo, "src/demo/__init__.py", "import iniconfig\n\n\ndef add(a, b):\n    return a + b\n");
        write(repo, "tests/test_demo.py", "from demo import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\n"
                + "def test_zero():\n    assert add(0, 0) == 0\n");
        write(repo, ".gitignore", ".venv/\n__pycache__/\n");
        // the lock file a uv project commits: made here with uv from the package index, as a developer would
        Path tools = dir.resolve("uv-tool");
        assumeTrue(sh(dir, "python3 -m venv " + tools + " && " + tools + "/bin/pip install -q uv") == 0,
                "uv could not be installed from the package index (python3 -m venv + pip install uv)");
        assumeTrue(sh(repo, tools + "/bin/uv lock -q") == 0, "uv lock needs the package index");
        assertThat(sh(repo, "rm -rf .venv && git init -q -b main && git add -A && git -c user.name=t -c user.email=t@example.com commit -qm init")).isZero();

        Path manifest = dir.resolve("env.yaml");
        Result derive = cli("derive", "--repo", repo.toString(), "--commit", "HEAD", "--workflow", "ci.yml", "-o", manifest.toString());
        assertThat(derive.exit()).as(derive.err()).isZero();
        assertThat(Files.readString(manifest)).contains("uv: '*'").contains("uv sync --locked").contains("command: uv run --locked pytest");

        JsonNode noOp = run(manifest, "true", "noop");
        assertThat(noOp.path("reward").asDouble()).as(noOp.toString()).isEqualTo(1.0);
        assertThat(noOp.toString()).doesNotContain("not provisioned");
        JsonNode breaking = run(manifest, "printf 'def add(a, b):\\n    return a - b\\n' > src/demo/__init__.py", "breaking");
        assertThat(breaking.path("reward").asDouble()).as(breaking.toString()).isEqualTo(0.0);
    }

    private JsonNode run(Path manifest, String agent, String name) throws IOException {
        return CliInProcess.run(dir, manifest, agent, name);
    }
}
