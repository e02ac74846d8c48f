package dev.crucible.derive;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 15 point 4: runner prefixes (uv/hatch/uvx), make targets judged by their recipe, the job choice
 * explained, docs/build steps pruned from setup, needs: artifacts made in setup, test globs per ecosystem.
 */
class WorkflowReadingTest {
    @TempDir
    Path repo;

    private Derivation derive(String workflow) throws DerivationException {
        return WorkflowFixtures.fromText(repo, "ci.yml", workflow);
    }

    private void write(String path, String text) {
        WorkflowFixtures.write(repo, path, text);
    }

    private static StepReport step(Derivation d, int n) {
        return d.steps().get(n - 1);
    }

    @Test
    void unrelatedFirstJobIsNotChosenWhenAUvWrappedJobRunsTests() throws Exception {
        Derivation d = derive("""
                on: push
                jobs:
                  lic-headers:
                    runs-on: ubuntu-latest
                    steps:
                      - uses: actions/checkout@v4
                      - run: ./scripts/check-license-headers
                  tests:
                    runs-on: ubuntu-latest
                    steps:
                      - uses: actions/checkout@v4
                      - uses: astral-sh/setup-uv@v5
                      - run: uv run --group dev tox -e py
                """);
        assertThat(d.jobId()).isEqualTo("tests");
        assertThat(d.verifier().command()).isEqualTo("uv run --group dev tox -e py");
        assertThat(d.notes()).anyMatch(n -> n.contains("chose job 'tests'") && n.contains("tox -e py")
                && n.contains("'lic-headers' (line 3) runs no tests"));
    }

    @Test
    void makeTargetIsATestRunWhenItsRecipeRunsPytest() throws Exception {
        write("Makefile", """
                PYTHON ?= python3
                .PHONY: richtest lint
                lint:
                \truff check .
                richtest: deps
                \t@$(PYTHON) -m pytest -q tests
                deps:
                \tpip install -e .
                """);
        Derivation d = derive("""
                on: push
                jobs:
                  lint:
                    runs-on: ubuntu-latest
                    steps:
                      - run: make lint
                  rich:
                    runs-on: ubuntu-latest
                    steps:
                      - run: make deps
                      - run: make richtest
                """);
        assertThat(d.jobId()).isEqualTo("rich");
        assertThat(step(d, 2).decision()).isEqualTo(Disposition.TEST);
        assertThat(step(d, 2).reason()).contains("make richtest → pytest");
        assertThat(d.notes()).anyMatch(n -> n.contains("'lint' (line 3) lints (make lint)"));
    }

    @Test
    void coverageLeavesTheTestCommand() throws Exception {
        Derivation d = derive("""
                on: push
                jobs:
                  t:
                    runs-on: ubuntu-latest
                    steps:
                      - run: pip install -e . pytest-cov
                      - run: |
                          coverage run --source=pkg --branch -m pytest -q tests
                          coverage xml
                """);
        assertThat(d.verifier().command()).isEqualTo("python -m pytest -q tests");
        assertThat(d.verifier().type()).isEqualTo("test-suite");
        assertThat(step(d, 2).notes()).anyMatch(n -> n.contains("adjusted for grading") && n.contains("dropped `coverage xml`"));
        assertThat(CoverageWrappers.rewrite("pytest --cov=pkg --cov-report term-missing -x")).isEqualTo("pytest -x");
        assertThat(CoverageWrappers.rewrite("pytest -x")).isEqualTo("pytest -x");
    }

    @Test
    void toxTestEnvironmentRunsWithoutTox() throws Exception {
        write("tox.ini", """
                [tox]
                envlist = check-manifest,docs,flake8,py

                [testenv]
                deps =
                    pytest
                    pytest-cov
                setenv =
                    THREADING_TESTS = 1
                commands =
                    py.test --basetemp={envtmpdir} --cov=pkg --cov-report term-missing {posargs}

                [testenv:flake8]
                deps = flake8
                commands = flake8
                """);
        Derivation d = derive("""
                on: push
                jobs:
                  t:
                    runs-on: ubuntu-latest
                    steps:
                      - run: pip install tox
                      - run: tox
                """);
        assertThat(d.verifier().command()).isEqualTo("THREADING_TESTS=1 py.test");
        assertThat(d.verifier().framework()).isEqualTo("pytest");
        assertThat(d.setupScript()).contains("python -m pip install pytest pytest-cov").contains("python -m pip install -e .");
        assertThat(step(d, 2).notes()).anyMatch(n -> n.contains("tox environment 'py' run without tox"));
    }

    @Test
    void poeTasksAreReadFromPyproject() throws Exception {
        write("pyproject.toml", """
                [project]
                name = "x"

                [tool.poe.tasks]
                test = "pytest"
                docs = ["docs-html"]
                docs-html = "sphinx-build -b html doc/source doc/build"
                check = ["test", "docs"]

                [tool.poe.tasks.lint]
                sequence = [
                    { cmd = "ruff check ." },
                    { cmd = "ruff format --check ." },
                ]
                """);
        Derivation d = derive("""
                on: push
                jobs:
                  t:
                    runs-on: ubuntu-latest
                    steps:
                      - uses: astral-sh/setup-uv@v7
                      - run: uv run --python 3.12 poe lint
                      - run: uv run --python 3.12 poe check
                """);
        assertThat(step(d, 2).decision()).isEqualTo(Disposition.LINT);
        assertThat(step(d, 3).decision()).isEqualTo(Disposition.TEST);
        assertThat(step(d, 3).reason()).contains("poe check → pytest");
    }

    @Test
    void setupStepKeepsItsInstallsWhenItAlsoInstallsAnUploader() throws Exception {
        Derivation d = derive("""
                on: push
                jobs:
                  t:
                    runs-on: ubuntu-latest
                    steps:
                      - run: |
                          pip install -e .
                          pip install coveralls
                          coveralls --service=github
                      - run: coverage run --source=pkg test.py
                """);
        assertThat(step(d, 1).decision()).isEqualTo(Disposition.SETUP);
        assertThat(d.setupScript()).contains("pip install -e .").contains("pip install coveralls")
                .doesNotContain("--service=github");
        assertThat(d.verifier().command()).isEqualTo("python test.py");
    }

    @Test
    void docsAndDistributionStepsLeaveSetupUnlessTheTestsReadTheirOutput() throws Exception {
        Derivation d = derive("""
                on: push
                jobs:
                  test:
                    runs-on: ubuntu-latest
                    steps:
                      - uses: actions/checkout@v4
                      - run: pip install -e .
                      - name: Docs
                        run: |
                          pip install sphinx furo
                          sphinx-build -W docs docs/_build/html
                      - name: Build
                        run: |
                          pip install build twine
                          python -m build
                          twine check dist/*
                      - run: pytest -q
                      - run: pycodestyle src
                """);
        assertThat(step(d, 2).decision()).isEqualTo(Disposition.SETUP);
        assertThat(step(d, 3).decision()).isEqualTo(Disposition.DROPPED);
        assertThat(step(d, 3).reason()).contains("builds documentation").contains("the tests do not use its output");
        assertThat(step(d, 4).decision()).isEqualTo(Disposition.DROPPED);
        assertThat(step(d, 4).reason()).contains("builds a distribution");
        assertThat(d.setupScript()).contains("pip install -e .").doesNotContain("sphinx").doesNotContain("python -m build");

        Derivation reads = derive("""
                on: push
                jobs:
                  test:
                    runs-on: ubuntu-latest
                    steps:
                      - run: python -m build
                      - run: pip install dist/*.whl
                      - run: |
                          pytest -q
                          flake8 src
                """);
        assertThat(step(reads, 1).decision()).isEqualTo(Disposition.SETUP);
        assertThat(step(reads, 1).notes()).anyMatch(n -> n.contains("kept because step 2 reads dist/"));
        assertThat(reads.verifier().command()).isEqualTo("pytest -q");
        Derivation twoRuns = derive("""
                on: push
                jobs:
                  test:
                    runs-on: ubuntu-latest
                    steps:
                      - run: |
                          coverage run -m pytest --doctest-modules pkg/
                          pytest bench/
                """);
        assertThat(twoRuns.verifier().command()).contains("python -m pytest -p no:cacheprovider --doctest-modules pkg/\n"
                + "pytest -p no:cacheprovider bench/");
        assertThat(step(reads, 3).notes()).anyMatch(n -> n.contains("lint commands left out") && n.contains("flake8 src"));
    }

    @Test
    void artifactFromANeededJobIsMadeInSetupAndTheSetupReallyRuns() throws Exception {
        write("pkg/hello.txt", "hello\n");
        Derivation d = derive("""
                on: push
                jobs:
                  build:
                    runs-on: ubuntu-latest
                    steps:
                      - uses: actions/checkout@v4
                      - uses: actions/setup-python@v5
                        with:
                          python-version: "3.12"
                      - run: mkdir -p out && tar czf out/pkg.tar.gz pkg
                      - uses: actions/upload-artifact@v4
                        with:
                          name: sdist
                          path: out/
                      - run: echo publish-only
                  test:
                    needs: build
                    runs-on: ubuntu-latest
                    steps:
                      - uses: actions/checkout@v4
                      - uses: actions/download-artifact@v4
                        with:
                          name: sdist
                          path: dist
                      - run: mkdir -p unpacked && tar xzf dist/*.tar.gz -C unpacked
                      - run: pytest -q unpacked
                """);
        assertThat(step(d, 2).decision()).isEqualTo(Disposition.SETUP);
        assertThat(step(d, 2).reason()).contains("job 'build'").contains("[3]");
        assertThat(d.toolchains()).containsEntry("python", "3.12");
        assertThat(d.setupScript()).contains("tar czf out/pkg.tar.gz pkg").doesNotContain("publish-only");

        BashRunner.Result r = BashRunner.run(repo, d.setupScript(), Map.of());
        assertThat(r.exit()).as(r.output()).isZero();
        assertThat(repo.resolve("unpacked/pkg/hello.txt")).exists();
    }

    @Test
    void testPathsAreProtectedForTheJobsEcosystem() throws Exception {
        Derivation go = derive("""
                on: push
                jobs:
                  t:
                    runs-on: ubuntu-latest
                    steps:
                      - uses: actions/setup-go@v5
                        with:
                          go-version: "1.22"
                      - run: go test ./...
                """);
        assertThat(go.manifest().at("/spec/verifier/protectedPaths").toString()).contains("**/*_test.go")
                .contains("testdata/**").doesNotContain("__tests__");
        Derivation node = derive("""
                on: push
                jobs:
                  t:
                    runs-on: ubuntu-latest
                    steps:
                      - run: npm ci
                      - run: npm test
                """);
        assertThat(node.manifest().at("/spec/verifier/protectedPaths").toString()).contains("**/__tests__/**")
                .contains("**/*.test.{js,jsx,ts,tsx,mjs,cjs,mts,cts}").contains("**/*.spec.{js,jsx,ts,tsx,mjs,cjs,mts,cts}");
        Derivation rust = derive("""
                on: push
                jobs:
                  t:
                    runs-on: ubuntu-latest
                    steps:
                      - run: cargo test
                """);
        assertThat(rust.manifest().at("/spec/verifier/protectedPaths").toString()).contains("benches/**")
                .contains("tests/**").doesNotContain("_test.go");
        Derivation maven = derive("""
                on: push
                jobs:
                  t:
                    runs-on: ubuntu-latest
                    steps:
                      - run: mvn -B verify
                """);
        assertThat(maven.manifest().at("/spec/verifier/protectedPaths").toString()).contains("**/src/test/**");
        var matcher = java.nio.file.FileSystems.getDefault().getPathMatcher("glob:**/*.test.{js,jsx,ts,tsx,mjs,cjs,mts,cts}");
        assertThat(matcher.matches(Path.of("src/a/b.test.ts"))).isTrue();
        assertThat(matcher.matches(Path.of("src/a/b.ts"))).isFalse();
    }
}
