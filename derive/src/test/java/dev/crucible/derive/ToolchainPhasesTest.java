package dev.crucible.derive;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One job, two setups of a toolchain (gpt4free's unittest.yml: Python 3.8 with the minimal requirements and the tests,
 * then Python 3.14 with the full requirements and the tests again): the environment gets the version the last test
 * step runs under; before, the first was kept and the 3.14 requirements failed to resolve on it.
 */
class ToolchainPhasesTest {
    @TempDir
    Path repo;

    private Derivation derive(String workflow) throws Exception {
        Files.writeString(repo.resolve("requirements.txt"), "requests\n");
        return WorkflowFixtures.fromText(repo, ".github/workflows/ci.yml", workflow);
    }

    @Test
    void theVersionTheLastTestStepRunsUnderIsKeptAndTheEarlierPythonPhaseIsLeftOut() throws Exception {
        Derivation d = derive("""
                on: push
                jobs:
                  build:
                    runs-on: ubuntu-latest
                    steps:
                    - uses: actions/checkout@v4
                    - uses: actions/setup-python@v5
                      with: {python-version: "3.8"}
                    - run: pip install -r requirements-min.txt
                    - run: python -m pytest tests
                    - uses: actions/setup-python@v5
                      with: {python-version: "3.14"}
                    - run: pip install -r requirements.txt
                    - run: python -m pytest tests
                """);
        assertThat(d.toolchains()).containsEntry("python", "3.14");
        assertThat(d.setupScript()).contains("pip install -r requirements.txt").doesNotContain("requirements-min");
        assertThat(WorkflowFixtures.step(d, 2).decision()).isEqualTo(Disposition.DROPPED);
        assertThat(WorkflowFixtures.step(d, 2).reason()).contains("sets up python 3.8", "python 3.14");
        assertThat(WorkflowFixtures.step(d, 3).reason()).contains("installs into python 3.8");
        assertThat(WorkflowFixtures.step(d, 4).decision()).isEqualTo(Disposition.DROPPED);
        assertThat(WorkflowFixtures.step(d, 4).reason()).contains("runs the tests under python 3.8");
        assertThat(WorkflowFixtures.step(d, 7).decision()).isEqualTo(Disposition.TEST);
        assertThat(d.verifier().command()).containsOnlyOnce("python -m pytest tests");
    }

    @Test
    void anotherToolchainKeepsTheEarlierPhasesInstallsWhichLiveInTheWorkspace() throws Exception {
        Derivation d = derive("""
                on: push
                jobs:
                  build:
                    runs-on: ubuntu-latest
                    steps:
                    - uses: actions/checkout@v4
                    - uses: actions/setup-node@v4
                      with: {node-version: "18"}
                    - run: npm ci
                    - run: npm test
                    - uses: actions/setup-node@v4
                      with: {node-version: "22"}
                    - run: npm test
                """);
        assertThat(d.toolchains()).containsEntry("node", "22");
        assertThat(d.setupScript()).contains("npm ci");
        assertThat(WorkflowFixtures.step(d, 4).reason()).contains("runs the tests under node 18");
    }

    @Test
    void oneSetupOrTheSameVersionTwiceChangesNothing() throws Exception {
        Derivation d = derive("""
                on: push
                jobs:
                  build:
                    runs-on: ubuntu-latest
                    steps:
                    - uses: actions/setup-python@v5
                      with: {python-version: "3.12"}
                    - run: pip install -r requirements.txt
                    - run: python -m pytest unit
                    - uses: actions/setup-python@v5
                      with: {python-version: "3.12"}
                    - run: python -m pytest integration
                """);
        assertThat(d.toolchains()).containsEntry("python", "3.12");
        assertThat(d.verifier().command()).contains("pytest unit", "pytest integration");
        assertThat(d.setupScript()).contains("pip install -r requirements.txt");
    }
}
