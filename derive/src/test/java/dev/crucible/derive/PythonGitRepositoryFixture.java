package dev.crucible.derive;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Creates a small real git repository: a Python package with a bug-free {@code calc} module, a pytest
 * suite, a setup step that generates a module the tests import, and a GitHub Actions workflow the way a
 * real project writes it. Used to derive an environment at a real commit and run what was derived.
 */
public final class PythonGitRepositoryFixture {
    public static final String WORKFLOW = ".github/workflows/ci.yml";

    /** @param repo the repository directory; @param commit the full id of its only commit */
    public record Repository(Path repo, String commit) {
    }

    private PythonGitRepositoryFixture() {
    }

    public static Repository create(Path repo) throws IOException, InterruptedException {
        Files.createDirectories(repo);
        write(repo, "calc/__init__.py", "");
        write(repo, "calc/ops.py", """
                from calc._build import PRECISION


                def add(a, b):
                    return a + b


                def divide(a, b):
                    if b == 0:
                        raise ValueError("division by zero")
                    return round(a / b, PRECISION)
                """);
        write(repo, "scripts/gen_build_info.py", """
                # Generates calc/_build.py, as many projects generate version or build modules before testing.
                import os
                import sys

                precision = int(os.environ["CALC_PRECISION"])
                with open(os.path.join("calc", "_build.py"), "w") as f:
                    f.write(f"PRECISION = {precision}\\nPYTHON = {sys.argv[1]!r}\\n")
                """);
        write(repo, "tests/test_ops.py", """
                import pytest

                from calc import ops
                from calc._build import PYTHON


                def test_add():
                    assert ops.add(2, 3) == 5


                def test_divide_rounds_to_precision():
                    assert ops.divide(1, 3) == 0.33


                def test_divide_by_zero():
                    with pytest.raises(ValueError):
                        ops.divide(1, 0)


                def test_built_for_the_matrix_python():
                    assert PYTHON == "3.11"
                """);
        write(repo, "requirements-test.txt", "pytest>=7\n");
        write(repo, "pytest.ini", "[pytest]\naddopts = -p no:cacheprovider\npythonpath = .\n");
        write(repo, ".gitignore", "__pycache__/\ncalc/_build.py\n");
        write(repo, WORKFLOW, """
                name: CI

                on:
                  push:
                    branches: [main]
                  pull_request:

                env:
                  CALC_PRECISION: "2"

                jobs:
                  lint:
                    runs-on: ubuntu-latest
                    steps:
                      - uses: actions/checkout@v4
                      - uses: actions/setup-python@v5
                        with:
                          python-version: "3.12"
                      - run: pip install ruff
                      - run: ruff check .

                  test:
                    runs-on: ${{ matrix.os }}
                    strategy:
                      matrix:
                        os: [ubuntu-latest, windows-latest]
                        python-version: ["3.11", "3.12"]
                    steps:
                      - uses: actions/checkout@v4
                      - name: Set up Python ${{ matrix.python-version }}
                        uses: actions/setup-python@v5
                        with:
                          python-version: ${{ matrix.python-version }}
                          cache: pip
                      - uses: actions/cache@v4
                        with:
                          path: ~/.cache/pip
                          key: pip-${{ hashFiles('requirements-test.txt') }}
                      - name: Install dependencies
                        run: |
                          python -m pip install --upgrade pip
                          pip install -r requirements-test.txt
                      - name: Generate build info
                        run: python scripts/gen_build_info.py "${{ matrix.python-version }}"
                      - name: Add tools to PATH
                        run: |
                          mkdir -p "$RUNNER_TEMP/bin"
                          echo "$RUNNER_TEMP/bin" >> "$GITHUB_PATH"
                          echo "BUILD_FLAVOUR=ci build" >> "$GITHUB_ENV"
                      - name: Check build info
                        run: test "$BUILD_FLAVOUR" = "ci build" && test -f calc/_build.py
                      - name: Run tests
                        run: pytest -q tests
                      - name: Upload coverage
                        if: matrix.os == 'ubuntu-latest' && github.event_name == 'push'
                        uses: codecov/codecov-action@v4
                        with:
                          token: ${{ secrets.CODECOV_TOKEN }}
                """);
        git(repo, "init", "-q", "-b", "main");
        git(repo, "add", "-A");
        git(repo, "-c", "user.name=Crucible Test", "-c", "user.email=test@crucible.dev", "commit", "-q", "-m",
                "calc with tests and CI");
        return new Repository(repo, git(repo, "rev-parse", "HEAD").strip());
    }

    private static void write(Path repo, String path, String text) throws IOException {
        Path file = repo.resolve(path);
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }

    static String git(Path repo, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("git", "-C", repo.toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        // Commits must not depend on the machine's git identity or hooks.
        pb.environment().putAll(Map.of("GIT_CONFIG_NOSYSTEM", "1", "GIT_AUTHOR_DATE", "2024-01-01T00:00:00Z",
                "GIT_COMMITTER_DATE", "2024-01-01T00:00:00Z"));
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("git " + String.join(" ", args) + " failed: " + out);
        }
        return out;
    }
}
