package dev.crucible.derive;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 35.3: what setup keeps of CI's other steps. */
class CiExtrasTest {
    @TempDir
    Path repo;

    private Derivation derive(String workflow) throws Exception {
        Files.createDirectories(repo.resolve(".github/workflows"));
        Files.writeString(repo.resolve(".github/workflows/ci.yml"), workflow);
        DerivationRequest request = new DerivationRequest(repo, null, ".github/workflows/ci.yml", null, Map.of(), null);
        return new WorkflowDeriver().deriveFromText(request, workflow);
    }

    private void script(String path, String text) throws Exception {
        Path p = repo.resolve(path);
        Files.createDirectories(p.getParent());
        Files.writeString(p, text);
        p.toFile().setExecutable(true);
    }

    @Test
    void aScriptThatOnlyBuildsAndChecksDistributionsAndDocsIsLeftOutWithTheReason() throws Exception {
        // encode/httpx: scripts/build is `python -m build`, `twine check dist/*`, `mkdocs build`; the tests use none of it
        script("scripts/install", "#!/bin/sh -e\npip install -r requirements.txt\n");
        script("scripts/check", "#!/bin/sh -e\nexport SOURCE_FILES=\"src tests\"\nset -x\n./scripts/sync-version\n"
                + "ruff format --check $SOURCE_FILES\nmypy $SOURCE_FILES\n");
        // httpx's version check: reads two files and compares, changes nothing
        script("scripts/sync-version", "#!/bin/sh -e\nV=$(grep -o -E '[0-9]+' CHANGELOG.md | sed -n 2p)\n"
                + "W=$(grep -o -E '[0-9]+' src/__version__.py | head -1)\necho \"V: $V\"\nif [ \"$V\" != \"$W\" ]; then\n"
                + "    echo \"mismatch\" >&2\n    exit 1\nfi\n");
        script("scripts/build", "#!/bin/sh -e\nif [ -d 'venv' ] ; then\n    PREFIX=\"venv/bin/\"\nelse\n    PREFIX=\"\"\nfi\nset -x\n"
                + "${PREFIX}python -m build\n${PREFIX}twine check dist/*\n${PREFIX}mkdocs build\n");
        script("scripts/test", "#!/bin/sh\nset -ex\ncoverage run -m pytest \"$@\"\n");
        script("scripts/coverage", "#!/bin/sh -e\ncoverage report --show-missing --fail-under=100\n");
        Derivation d = derive("""
                name: Test Suite
                on: [push]
                jobs:
                  tests:
                    runs-on: ubuntu-latest
                    steps:
                      - uses: actions/checkout@v4
                      - uses: actions/setup-python@v5
                        with:
                          python-version: "3.12"
                      - name: Install dependencies
                        run: scripts/install
                      - name: Run linting checks
                        run: scripts/check
                      - name: Build package & docs
                        run: scripts/build
                      - name: Run tests
                        run: scripts/test
                      - name: Enforce coverage
                        run: scripts/coverage
                """);
        assertThat(d.setupScript()).contains("scripts/install").doesNotContain("scripts/build").doesNotContain("scripts/check");
        assertThat(d.steps().get(4).decision()).isEqualTo(Disposition.DROPPED);
        assertThat(d.steps().get(4).reason()).contains("scripts/build").contains("twine check").contains("mkdocs build");
        assertThat(d.steps().get(3).reason()).contains("scripts/check").contains("lints (ruff format --check $SOURCE_FILES)")
                .contains("runs scripts/sync-version, which only reads and compares files");
        assertThat(d.verifier().command()).isEqualTo("scripts/test");
    }

    @Test
    void aScriptWhoseOutputTheTestsReadOrThatDoesMoreIsKept() throws Exception {
        script("scripts/build", "#!/bin/bash\nset -e\npython -m build\ntwine check dist/*\n");
        script("scripts/gen", "#!/bin/sh -e\npython -m build\npython tools/generate.py\n");
        script("scripts/lint", "#!/bin/sh -e\nscripts/stamp\nruff check .\n");
        script("scripts/stamp", "#!/bin/sh -e\nV=$(cat VERSION)\necho \"__version__ = '$V'\" > src/_version.py\n");
        Derivation d = derive("""
                on: [push]
                jobs:
                  tests:
                    runs-on: ubuntu-latest
                    steps:
                      - uses: actions/setup-python@v5
                        with:
                          python-version: "3.12"
                      - run: scripts/build
                      - run: ./scripts/gen
                      - run: scripts/lint
                      - run: pip install dist/*.whl && pytest
                """);
        assertThat(d.steps().get(1).decision()).as(d.steps().get(1).reason()).isEqualTo(Disposition.SETUP);
        assertThat(d.steps().get(2).decision()).as(d.steps().get(2).reason()).isEqualTo(Disposition.SETUP);
        // a script that writes a file the tests may import is kept, and so is the lint script that runs it
        assertThat(d.steps().get(3).decision()).as(d.steps().get(3).reason()).isEqualTo(Disposition.SETUP);
        assertThat(d.setupScript()).contains("scripts/build").contains("./scripts/gen").contains("scripts/lint");
    }

    @Test
    void pipxInstallingAPythonToolIsAToolchainRequest() throws Exception {
        Derivation d = derive("""
                on: [push]
                jobs:
                  tests:
                    runs-on: ubuntu-latest
                    steps:
                      - uses: actions/setup-python@v5
                        with:
                          python-version: "3.12"
                      - run: pipx install poetry==1.8.3
                      - run: pipx install nox && pipx install black
                      - run: poetry install
                      - run: poetry run pytest
                """);
        assertThat(d.toolchains()).containsEntry("poetry", "1.8.3").doesNotContainKey("nox");
        assertThat(d.steps().get(1).decision()).isEqualTo(Disposition.TOOLCHAIN);
        assertThat(d.steps().get(1).reason()).contains("pipx install poetry==1.8.3: needs poetry 1.8.3");
        assertThat(d.setupScript()).doesNotContain("pipx install poetry").contains("poetry install")
                .contains("pipx install nox && pipx install black"); // black is no tool the runtime installs: kept as written
    }

    @Test
    void aToolsInstallerScriptPipedIntoAnInterpreterIsAToolchainRequest() throws Exception {
        // open-interpreter: `curl -sSL https://install.python-poetry.org | python3 -`; its host is unreachable where setup runs
        Derivation d = derive("""
                on: [push]
                jobs:
                  tests:
                    runs-on: ubuntu-latest
                    steps:
                      - uses: actions/setup-python@v5
                        with:
                          python-version: "3.12"
                      - name: Install poetry
                        run: |
                          curl -sSL https://install.python-poetry.org | python3 - --version 1.8.3
                          echo "$HOME/.local/bin" >> $GITHUB_PATH
                      - run: curl -LsSf https://astral.sh/uv/0.4.30/install.sh | sh
                      - run: curl -sSL https://example.org/setup.sh | bash
                      - run: poetry install
                      - run: poetry run pytest
                """);
        assertThat(d.toolchains()).containsEntry("poetry", "1.8.3").containsEntry("uv", "0.4.30");
        assertThat(d.steps().get(1).decision()).isEqualTo(Disposition.TOOLCHAIN);
        assertThat(d.steps().get(1).reason()).contains("install.python-poetry.org: needs poetry 1.8.3");
        assertThat(d.setupScript()).doesNotContain("install.python-poetry.org").doesNotContain("astral.sh")
                .contains("curl -sSL https://example.org/setup.sh | bash"); // no tool the runtime installs: kept as written
        assertThat(derive("""
                on: [push]
                jobs:
                  tests:
                    runs-on: ubuntu-latest
                    steps:
                      - run: curl -sSL https://install.python-poetry.org | POETRY_VERSION=1.7.1 python3 -
                      - run: poetry run pytest
                """).toolchains()).containsEntry("poetry", "1.7.1");
    }
}
