package dev.crucible.derive;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Python test commands graded per test through what wraps them in CI (issue 35 point 1, h-derive2's sample): tox
 * environments that reference other sections or come from the matrix's env, and pytest-xdist workers.
 */
class PythonWrapperShapesTest {
    @TempDir
    Path repo;

    private Derivation derive(String workflow) throws DerivationException {
        return WorkflowFixtures.fromText(repo, "ci.yml", workflow);
    }

    private void write(String path, String text) {
        WorkflowFixtures.write(repo, path, text);
    }

    @Test
    void toxDepsTakenFromAnotherSectionStillRunWithoutTox() throws Exception {
        // scrapy: deps = {[test-requirements]deps} with ini comments; tox kept, it built envs at grading (one execution)
        write("tox.ini", """
                [tox]
                envlist = lint,py

                [test-requirements]
                deps =
                    attrs
                    sybil >= 1.3.0  # https://github.com/cjw296/sybil/issues/20

                [testenv]
                deps =
                    {[test-requirements]deps}
                    pytest >= 8.4.1
                commands =
                    pytest {posargs} tests
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
        assertThat(d.verifier().command()).isEqualTo("pytest tests");
        assertThat(d.setupScript()).contains("python -m pip install attrs 'sybil >= 1.3.0' 'pytest >= 8.4.1'");
        assertThat(ToxFlattening.references("{[a]x} {[nope]y}", java.util.Map.of("a", java.util.Map.of("x", "{[b]z}"),
                "b", java.util.Map.of("z", "deep")))).isEqualTo("deep {[nope]y}");
    }

    @Test
    void toxDepsOptionsArePipArgumentsOfTheirOwn() throws Exception {
        // itsdangerous: deps = -r requirements/tests.txt was one argument, and pip looked for " requirements/tests.txt"
        write("requirements/tests.txt", "# pinned test requirements (none needed here)\n");
        write("tox.ini", """
                [testenv]
                skip_install = true
                deps =
                    -r requirements/tests.txt
                    pytest >= 8
                commands = pytest -v --tb=short --basetemp={envtmpdir} {posargs}
                """);
        Derivation d = derive("""
                on: push
                jobs:
                  t:
                    runs-on: ubuntu-latest
                    steps:
                      - run: pip install tox
                      - run: tox -e py
                """);
        String line = d.setupScript().lines().filter(l -> l.contains("pip install") && l.contains("requirements/tests.txt"))
                .findFirst().orElseThrow();
        assertThat(line).isEqualTo("python -m pip install -r requirements/tests.txt 'pytest >= 8'");
        // pip itself reads the file: offline, with the requirement that needs the index left out
        String[] argv = {"python3", "-m", "pip", "install", "--no-index", "--dry-run"};
        Process p = new ProcessBuilder(java.util.stream.Stream.concat(java.util.Arrays.stream(argv),
                java.util.stream.Stream.of("-r", "requirements/tests.txt")).toList()).directory(repo.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as(out).isZero();
        // the derived line as bash splits it reaches pip as separate arguments
        Process q = new ProcessBuilder("bash", "-c", "set -- " + line.substring("python -m pip install ".length()) + "; printf '[%s]\\n' \"$@\"")
                .redirectErrorStream(true).start();
        assertThat(new String(q.getInputStream().readAllBytes())).isEqualTo("[-r]\n[requirements/tests.txt]\n[pytest >= 8]\n");
    }

    @Test
    void installsAmongTheToxCommandsRunInSetup() throws Exception {
        // black: its tox commands install extras between two pytest runs; grading (offline) failed on pip's index lookups
        write("tox.ini", """
                [testenv]
                skip_install = True
                deps = pytest
                dependency_groups = cov-tests
                commands =
                    pip install -e .[d]
                    pytest tests --run-optional no_jupyter
                    pip install -e .[jupyter]
                    pytest tests -m jupyter
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
        assertThat(d.verifier().command()).contains("tests --run-optional no_jupyter").contains("tests -m jupyter")
                .doesNotContain("pip install");
        String setup = d.setupScript();
        assertThat(setup).contains("pip install -e .[d]").contains("pip install -e .[jupyter]");
        assertThat(setup.indexOf("pip install pytest")).isLessThan(setup.indexOf("pip install -e .[d]"));
        // black's dependency_groups = cov-tests (its pytest): installed with pip 25.1's --group, pip raised first
        assertThat(setup).contains("python -m pip install --group cov-tests");
        assertThat(setup.indexOf("'pip>=25.1'")).isLessThan(setup.indexOf("--group cov-tests"));
    }

    @Test
    void aStepEnvWrittenAsOneMatrixExpressionPicksTheToxEnv() throws Exception {
        // scrapy's tests-ubuntu.yml: env: ${{ matrix.env }} ("step 6.env must be a mapping" before)
        write("tox.ini", """
                [testenv]
                deps = pytest
                commands = pytest tests

                [testenv:no-reactor]
                deps = pytest
                commands = pytest --reactor=none tests
                """);
        Derivation d = derive("""
                on: push
                jobs:
                  tests:
                    runs-on: ubuntu-latest
                    strategy:
                      matrix:
                        include:
                        - python-version: "3.12"
                          env:
                            TOXENV: no-reactor
                    steps:
                      - uses: actions/setup-python@v5
                        with:
                          python-version: ${{ matrix.python-version }}
                      - run: pip install tox
                      - name: Run tests
                        env: ${{ matrix.env }}
                        run: tox
                """);
        assertThat(d.verifier().command()).isEqualTo("TOXENV=no-reactor pytest --reactor=none tests");
    }

    @Test
    void xdistWorkersAreTakenOutSoTheGraderCanFollowEachTest() throws Exception {
        // fastapi (pytest -n auto) and scrapy (job env PYTEST_ADDOPTS: -n auto --no-cov): "never reached the end of its session"
        Derivation d = derive("""
                on: push
                jobs:
                  t:
                    runs-on: ubuntu-latest
                    env:
                      PYTEST_ADDOPTS: -n auto --no-cov
                    steps:
                      - run: pip install -e .
                      - run: pytest -n 4 --dist=loadfile tests
                """);
        assertThat(d.verifier().command()).isEqualTo("pytest tests");
        assertThat(d.manifestYaml()).contains("PYTEST_ADDOPTS: --no-cov").doesNotContain("PYTEST_ADDOPTS: -n auto");
        assertThat(d.notes()).anyMatch(n -> n.contains("pytest-xdist workers taken out"));
        assertThat(XdistWorkers.strip("pytest -q -n auto --numprocesses=2 -x")).isEqualTo("pytest -q -x");
        assertThat(XdistWorkers.strip("pytest -k not-n")).isEqualTo("pytest -k not-n");
    }

    @Test
    void toxInAWorkingFolderInstallsThereOnce() throws Exception {
        // the step's setup lines already run in its working folder: wrapped in another `cd folder`, they ran in folder/folder
        write("pkg/tox.ini", """
                [testenv]
                deps = pytest
                commands = pytest tests
                """);
        Derivation d = derive("""
                on: push
                jobs:
                  t:
                    runs-on: ubuntu-latest
                    steps:
                      - run: pip install tox
                      - run: tox -e py
                        working-directory: pkg
                """);
        assertThat(d.setupScript()).contains("cd pkg\npython -m pip install pytest\npython -m pip install -e .\n")
                .doesNotContain("(cd ");
    }
}
