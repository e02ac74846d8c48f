package dev.crucible.derive;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 35.3, Python project tools as pallets and marshmallow-code run them in CI: {@code uv run --locked … tox run}
 * with tox configured in pyproject.toml (tox-uv's lock runner), {@code uv run} with no install step before it, and a
 * job that type-checks through tox ahead of the one that tests.
 */
class PythonProjectToolsTest {
    @TempDir
    Path repo;

    private Derivation derive(String workflow) throws DerivationException {
        return WorkflowFixtures.fromText(repo, "ci.yml", workflow);
    }

    private void write(String path, String text) {
        WorkflowFixtures.write(repo, path, text);
    }

    private static final String PYPROJECT_TOX = """
            [project]
            name = "demo"
            version = "1"

            [dependency-groups]
            dev = ["tox", "tox-uv"]
            tests = ["pytest"]

            [tool.tox]
            env_list = ["py3.13", "py3.12", "style", "typing"]

            [tool.tox.env_run_base]
            description = "pytest on latest dependency versions"
            runner = "uv-venv-lock-runner"
            package = "wheel"
            wheel_build_env = ".pkg"
            dependency_groups = ["tests"]
            commands = [[
                "pytest", "-v", "--tb=short", "--basetemp={env_tmp_dir}",
                {replace = "posargs", default = [], extend = true},
            ]]

            [tool.tox.env.typing]
            dependency_groups = ["typing"]
            commands = [["mypy"], ["pyright", "--verifytypes", "demo"]]
            """;

    @Test
    void uvRunToxWithTomlConfigurationRunsTheEnvironmentsCommandsAfterALockedSync() throws Exception {
        // pallets/click: TOX_ENV picks the env; tox-uv's lock runner syncs group 'tests' from uv.lock
        write("pyproject.toml", PYPROJECT_TOX);
        Derivation d = derive("""
                on: push
                jobs:
                  tests:
                    runs-on: ubuntu-latest
                    strategy:
                      matrix:
                        include:
                          - {python: '3.13'}
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
        assertThat(d.jobId()).isEqualTo("tests");
        assertThat(d.verifier().command()).isEqualTo("TOX_ENV=py3.13 pytest -v --tb=short"); // the step's env, as for TOXENV
        assertThat(d.setupScript()).contains("uv sync --locked --no-default-groups --group tests")
                .doesNotContain("uv sync --inexact").doesNotContain("pip install -e");
        assertThat(d.toolchains()).containsKey("uv");
        assertThat(String.join("\n", d.notes())).contains("tox environment 'py3.13' is flattened");
    }

    @Test
    void uvThatTheRunnerHasIsAskedAsAToolchainAndToxThatSetupInstallsIsNot() throws Exception {
        // infiniflow/ragflow: a self-hosted runner with uv on it; no setup-uv, so setup failed "uv: command not found"
        write("pyproject.toml", "[project]\nname = \"demo\"\nversion = \"1\"\n");
        Derivation d = derive("""
                on: push
                jobs:
                  tests:
                    runs-on: ubuntu-latest
                    steps:
                      - uses: actions/checkout@v4
                      - run: uv sync --python 3.13 --frozen
                      - run: uv run pytest tests
                """);
        assertThat(d.toolchains()).containsKey("uv");
        assertThat(String.join("\n", d.notes())).contains("runs uv with no step that sets it up");
        Derivation pip = derive("""
                on: push
                jobs:
                  t:
                    runs-on: ubuntu-latest
                    steps:
                      - run: python -m pip install "tox>=4" pytest
                      - run: tox -e tests
                """);
        assertThat(pip.toolchains()).doesNotContainKey("tox");
    }

    @Test
    void aTomlEnvironmentWithItsOwnDepsAndNoLockRunnerInstallsWithPip() throws Exception {
        write("tox.toml", """
                env_list = ["tests"]
                [env.tests]
                deps = ["pytest>=8", "sybil"]
                extras = ["speedups"]
                set_env = { DEMO_MODE = "1" }
                commands = [["python", "-m", "pytest", "tests", "{posargs}"]]
                """);
        Derivation d = derive("""
                on: push
                jobs:
                  t:
                    runs-on: ubuntu-latest
                    steps:
                      - run: pip install tox
                      - run: tox -e tests
                """);
        assertThat(d.verifier().command()).contains("python -m pytest tests").doesNotContain("posargs");
        assertThat(d.setupScript()).contains("python -m pip install 'pytest>=8' sybil").contains("python -m pip install -e '.[speedups]'");
        assertThat(d.manifest().toString()).contains("DEMO_MODE");
    }

    @Test
    void aTomlEnvironmentThisReaderCannotTakeKeepsTox() throws Exception {
        // a base to inherit from: tox stays, and 'uv run' still gets its sync in setup so tox itself is there
        write("pyproject.toml", """
                [project]
                name = "demo"
                version = "1"
                [tool.tox.env_run_base]
                base = ["other"]
                commands = [["pytest"]]
                """);
        Derivation d = derive("""
                on: push
                jobs:
                  t:
                    runs-on: ubuntu-latest
                    steps:
                      - uses: astral-sh/setup-uv@v6
                      - run: uv run --locked --no-default-groups --group dev tox run -e py
                """);
        assertThat(d.verifier().command()).contains("tox run -e py");
        assertThat(d.setupScript()).contains("uv sync --inexact --locked --no-default-groups --group dev");
    }

    @Test
    void uvRunWithoutAnInstallStepIsSyncedInSetupWithItsSelectionFlags() throws Exception {
        write("pyproject.toml", "[project]\nname = \"demo\"\nversion = \"1\"\n");
        Derivation d = derive("""
                on: push
                jobs:
                  t:
                    runs-on: ubuntu-latest
                    steps:
                      - uses: astral-sh/setup-uv@v6
                      - run: uv run --frozen --extra cli --group test --python 3.12 pytest -q tests
                """);
        assertThat(d.setupScript()).contains("uv sync --inexact --frozen --extra cli --group test\n").doesNotContain("--python 3.12\n");
        assertThat(d.verifier().command()).isEqualTo("uv run --frozen --extra cli --group test --python 3.12 pytest -q tests");
    }

    @Test
    void aKeptSyncStepIsNotDoubled() throws Exception {
        write("pyproject.toml", "[project]\nname = \"demo\"\nversion = \"1\"\n");
        Derivation d = derive("""
                on: push
                jobs:
                  t:
                    runs-on: ubuntu-latest
                    steps:
                      - uses: astral-sh/setup-uv@v6
                      - run: uv sync --locked --all-extras
                      - run: uv run --locked pytest
                """);
        assertThat(d.setupScript()).contains("uv sync --locked --all-extras").doesNotContain("uv sync --inexact");
        assertThat(UvSync.syncFor("uv run --no-project python x.py")).isNull();
        assertThat(UvSync.syncFor("FOO=1 uv run --no-default-groups --group=dev tox")).isEqualTo("uv sync --inexact --no-default-groups --group=dev");
    }

    @Test
    void jobsThatOnlyTypeCheckOrBuildDocsThroughToxArePassedOverForTheOneThatTests() throws Exception {
        // marshmallow: build-release.yml's jobs 'mypy' (tox -e mypy-test: mypy over test cases) and 'docs' come first
        write("tox.ini", """
                [tox]
                envlist = lint,mypy-test,py{39,313}

                [testenv]
                extras = tests
                commands = pytest {posargs}

                [testenv:mypy-test]
                deps = mypy
                commands = mypy --show-error-codes tests/mypy_test_cases/

                [testenv:check-annotations]
                deps = pyright
                commands = pyright src
                """);
        String workflow = """
                on: push
                jobs:
                  mypy:
                    runs-on: ubuntu-latest
                    steps:
                      - run: python -m pip install tox
                      - run: python -m tox -e %s
                  docs:
                    runs-on: ubuntu-latest
                    steps:
                      - run: pip install tox
                      - run: tox -e docs
                  tests:
                    runs-on: ubuntu-latest
                    strategy:
                      matrix:
                        include:
                          - { python: "3.13", tox: py313 }
                    steps:
                      - run: python -m pip install tox
                      - run: python -m tox -e ${{ matrix.tox }}
                """;
        for (String env : List.of("mypy-test", "check-annotations")) {
            Derivation d = derive(workflow.formatted(env));
            assertThat(d.jobId()).as(env).isEqualTo("tests");
            assertThat(String.join("\n", d.notes())).as(env).contains("'mypy' (line 3) only type-checks or builds docs", "'docs' (line 8) only type-checks or builds docs");
            assertThat(d.verifier().command()).as(env).isEqualTo("pytest");
            assertThat(d.setupScript()).as(env).contains("python -m pip install -e '.[tests]'");
        }
        // alone, it is still the job (no other job tests)
        Derivation alone = derive("""
                on: push
                jobs:
                  mypy:
                    runs-on: ubuntu-latest
                    steps:
                      - run: python -m tox -e mypy-test
                """);
        assertThat(alone.jobId()).isEqualTo("mypy");
    }

    @Test
    void tomlValuesAsToxWritesThem() {
        assertThat(TomlValue.parse("[[\"pytest\", '-v', {replace = \"posargs\", extend = true}], [\"x\"]] # c"))
                .isEqualTo(List.of(List.of("pytest", "-v", Map.of("replace", "posargs", "extend", true)), List.of("x")));
        assertThat(TomlValue.parse("\"\"\"multi\"\"\"")).isInstanceOf(TomlValue.Unreadable.class);
        assertThat(TomlValue.parse("true")).isEqualTo(true);
    }

    @Test
    void setupUvsPythonVersionAsksForThatPython() throws Exception {
        // LLaMA-Factory: setup-uv with python-version from the matrix and no setup-python; the environment got this
        // machine's default interpreter (3.11) for the 3.13 cell
        Derivation d = derive("""
                on: push
                jobs:
                  tests:
                    runs-on: ubuntu-latest
                    strategy:
                      matrix:
                        python: ["3.13", "3.12"]
                    steps:
                      - uses: astral-sh/setup-uv@v7
                        with:
                          python-version: ${{ matrix.python }}
                      - run: uv pip install -e .
                      - run: python -m pytest
                """);
        assertThat(d.toolchains()).containsEntry("uv", "*").containsEntry("python", "3.13");
        assertThat(String.join("\n", d.steps().get(0).notes()) + d.steps().get(0).reason()).doesNotContain("already asked");
    }

    @Test
    void uvVenvInSetupKeepsTheEnvironmentsVenv() throws Exception {
        // LLaMA-Factory: `uv venv` then `uv pip install`; the runtime's venv exists already and uv refused to replace it
        Derivation d = derive("""
                on: push
                jobs:
                  tests:
                    runs-on: ubuntu-latest
                    steps:
                      - uses: astral-sh/setup-uv@v7
                        with:
                          python-version: "3.12"
                      - run: |
                          uv venv
                          uv venv --python 3.12 --seed
                          uv venv other
                          uv pip install -e .
                      - run: python -m pytest
                """);
        assertThat(d.setupScript()).contains("uv venv --allow-existing\nuv venv --python 3.12 --seed --allow-existing\nuv venv other\n");
        assertThat(String.join("\n", d.notes())).contains("keeps the environment's venv");
    }
}
