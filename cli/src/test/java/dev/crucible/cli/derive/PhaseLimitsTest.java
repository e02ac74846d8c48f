package dev.crucible.cli.derive;

import static dev.crucible.cli.derive.BuiltRepos.git;
import static dev.crucible.cli.derive.BuiltRepos.write;
import static dev.crucible.cli.derive.CliInProcess.cli;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.crucible.cli.derive.CliInProcess.Result;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Per-phase limits of the baseline: a setup that runs long (syncthing's module downloads) and a grading that runs long
 * (bat compiling its crate graph) each stop at their own limit, and derive's outcome names the phase and the limit,
 * not one anonymous timeout of the whole derive. Real repositories the test makes, real crucible run.
 */
class PhaseLimitsTest {
    private static final String WORKFLOW = """
            name: CI
            on: [push]
            jobs:
              tests:
                runs-on: ubuntu-latest
                steps:
                  - uses: actions/checkout@v4
                  - uses: actions/setup-python@v5
                    with:
                      python-version: "3.11"
                  - run: ./scripts/bootstrap.sh
                  - run: python -m pytest -q tests
            """;

    @TempDir
    Path dir;

    @Test
    void aSetupPastItsLimitIsNamedAsSetup() throws Exception {
        Path repo = repo("slowsetup", "#!/bin/sh\nsleep 120\n", "def test_x():\n    assert True\n");
        long t0 = System.nanoTime();
        Result derive = cli("derive", "--repo", repo.toString(), "--commit", "HEAD", "--workflow", "ci.yml", "--baseline",
                "--setup-timeout", "5", "-o", dir.resolve("slowsetup.yaml").toString());
        assertThat(derive.exit()).as(derive.err()).isEqualTo(1);
        assertThat(derive.err()).contains("unusable at HEAD: baseline run 1: setup timed out");
        assertThat((System.nanoTime() - t0) / 1e9).as("the setup did not run its 120 s").isLessThan(110);
        // the limit is the baseline's: the manifest derive writes keeps CI's own
        assertThat(new YAMLMapper().readTree(dir.resolve("slowsetup.yaml").toFile()).path("spec").path("setup")
                .path("timeoutSeconds").asLong()).isNotEqualTo(5);
    }

    @Test
    void aGradingPastItsLimitIsNamedAsGrading() throws Exception {
        Path repo = repo("slowtests", "#!/bin/sh\ntrue\n", "import time\n\ndef test_x():\n    time.sleep(120)\n");
        Result derive = cli("derive", "--repo", repo.toString(), "--commit", "HEAD", "--workflow", "ci.yml", "--baseline",
                "--grading-timeout", "8", "-o", dir.resolve("slowtests.yaml").toString());
        assertThat(derive.exit()).as(derive.err()).isEqualTo(1);
        assertThat(derive.err()).contains("baseline run 1: grading timed out after 8 s");
    }

    @Test
    void aBatchGivesEachPhaseItsShareOfTheRepositoryLimit() {
        PhaseLimits p = PhaseLimits.forBatch(600, null, 90L);
        assertThat(p.setup()).isEqualTo(240);
        assertThat(p.grading()).isEqualTo(90);
        assertThat(PhaseLimits.stopped("the setup script ran past its timeout; see x/setup.log")).startsWith("setup timed out");
        assertThat(PhaseLimits.stopped("test command timed out after 150s")).startsWith("grading timed out after 150 s");
        assertThat(PhaseLimits.stopped("exit code 1")).isNull();
        assertThat(cli("derive", "--repos", dir.resolve("none.txt").toString(), "--setup-timeout", "0").err())
                .contains("--setup-timeout and --grading-timeout must be at least 1");
    }

    private Path repo(String name, String bootstrap, String test) throws IOException, InterruptedException {
        Path repo = dir.resolve(name);
        write(repo, ".github/workflows/ci.yml", WORKFLOW);
        write(repo, "scripts/bootstrap.sh", bootstrap);
        repo.resolve("scripts/bootstrap.sh").toFile().setExecutable(true);
        write(repo, "tests/test_x.py", test);
        git(repo, "init", "-q", "-b", "main");
        git(repo, "add", "-A");
        git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "initial");
        return repo;
    }
}
