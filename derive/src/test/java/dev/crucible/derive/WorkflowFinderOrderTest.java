package dev.crucible.derive;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 35.6 measurement: with no --workflow, fastapi's test-redistribute.yml won over its test.yml (name order) and
 * uv's test-windows-trampolines.yml (Windows only) over its ci.yml. test(s).yml now comes first, and a workflow that
 * tests only on another OS is taken only when no workflow tests on Linux. Real git repositories.
 */
class WorkflowFinderOrderTest {
    @TempDir
    Path repo;

    private static String workflow(String runsOn, String test) {
        return "on: push\njobs:\n  tests:\n    runs-on: " + runsOn + "\n    steps:\n      - uses: actions/checkout@v4\n"
                + "      - uses: actions/setup-python@v5\n        with:\n          python-version: '3.11'\n      - run: " + test + "\n";
    }

    @Test
    void testYmlBeforeOtherTestNamedFilesAndLinuxBeforeWindows() throws Exception {
        write("test-redistribute.yml", workflow("ubuntu-latest", "python -m pytest dist"));
        write("test-windows.yml", workflow("windows-latest", "python -m pytest win"));
        write("test.yml", workflow("ubuntu-latest", "python -m pytest tests"));
        commit();
        assertThat(WorkflowFinder.derive(repo, "HEAD", null).workflowPath()).isEqualTo(".github/workflows/test.yml");

        Files.delete(repo.resolve(".github/workflows/test.yml"));
        Files.delete(repo.resolve(".github/workflows/test-redistribute.yml"));
        write("ci.yml", workflow("ubuntu-latest", "python -m pytest tests"));
        commit();
        assertThat(WorkflowFinder.derive(repo, "HEAD", null).workflowPath()).isEqualTo(".github/workflows/ci.yml");
    }

    @Test
    void aWorkflowRunOnEveryPushComesBeforeOneFilteredToSomePaths() throws Exception {
        // yt-dlp: challenge-tests.yml (paths: the JS solvers) sorted before quick-test.yml (every pull request)
        write("challenge-tests.yml", workflow("ubuntu-latest", "python -m pytest test/test_jsc").replace("on: push\n",
                "on:\n  push:\n    branches: ['master']\n    paths:\n      - test/test_jsc/*.py\n"));
        write("quick-test.yml", workflow("ubuntu-latest", "python -m pytest test"));
        commit();
        assertThat(WorkflowFinder.derive(repo, "HEAD", null).workflowPath()).isEqualTo(".github/workflows/quick-test.yml");

        write("quick-test.yml", workflow("ubuntu-latest", "python -m pytest test").replace("on: push\n",
                "on:\n  pull_request:\n    paths: ['src/**']\n"));
        commit();
        assertThat(WorkflowFinder.derive(repo, "HEAD", null).workflowPath()).as("both filtered: by name")
                .isEqualTo(".github/workflows/challenge-tests.yml");
    }

    @Test
    void aWorkflowWhoseTestsReadSecretsComesAfterOneWhoseTestsDoNot() throws Exception {
        // MetaGPT: fulltest.yaml (name order first) decodes API keys from secrets into config files before pytest;
        // unittest.yaml copies the repository's test config
        write("fulltest.yaml", workflow("ubuntu-latest", "|\n          echo \"${{ secrets.KEY_YAML }}\" | base64 -d > config/key.yaml"
                + "\n          pytest tests/"));
        write("unittest.yaml", workflow("ubuntu-latest", "|\n          cp tests/config2.yaml config/\n          pytest"));
        commit();
        assertThat(WorkflowFinder.derive(repo, "HEAD", null).workflowPath()).isEqualTo(".github/workflows/unittest.yaml");

        Files.delete(repo.resolve(".github/workflows/unittest.yaml"));
        commit();
        assertThat(WorkflowFinder.derive(repo, "HEAD", null).workflowPath()).as("the only one that tests: still taken")
                .isEqualTo(".github/workflows/fulltest.yaml");
    }

    @Test
    void aScheduledChoreComesAfterTheWorkflowsAChangeMustPass() throws Exception {
        // sherlock: exclusions.yml (a nightly list update that runs some tests) sorted before regression.yml (pull requests)
        write("exclusions.yml", workflow("ubuntu-latest", "python -m pytest -m validate_targets_fp").replace("on: push\n",
                "on:\n  schedule:\n    #- cron: '0 5 * * 0'  # push to main\n    - cron: '0 5 * * *'\n  workflow_dispatch:\n"));
        write("regression.yml", workflow("ubuntu-latest", "python -m pytest tests").replace("on: push\n",
                "on:\n  pull_request:\n    branches: [main]\n"));
        commit();
        assertThat(WorkflowFinder.derive(repo, "HEAD", null).workflowPath()).isEqualTo(".github/workflows/regression.yml");
        assertThat(WorkflowFinder.runsOnPushOrPullRequest("name: x\n'on': [push, pull_request]\njobs: {}\n")).isTrue();
        assertThat(WorkflowFinder.runsOnPushOrPullRequest("on:\n  release:\n    types: [published]\njobs:\n  a:\n    steps:\n"
                + "      - run: git push\n")).isFalse();

        Files.delete(repo.resolve(".github/workflows/regression.yml"));
        commit();
        assertThat(WorkflowFinder.derive(repo, "HEAD", null).workflowPath()).as("still taken when nothing else tests")
                .isEqualTo(".github/workflows/exclusions.yml");
    }

    @Test
    void aCommitWithoutWorkflowsSaysSoAndOnlyGitsNoSuchPathMeansThat() throws Exception {
        Files.writeString(repo.resolve("README.md"), "no CI\n");
        commit();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> WorkflowFinder.derive(repo, "HEAD", null))
                .isInstanceOf(DerivationException.class).hasMessageContaining("no workflow files at commit HEAD");
        assertThat(WorkflowFinder.workflowFiles(repo, "HEAD")).isEmpty();
    }

    @Test
    void aWorkflowThatTestsOnlyOnWindowsIsStillTakenWhenNoneTestsOnLinux() throws Exception {
        write("test-windows.yml", workflow("windows-latest", "python -m pytest win"));
        write("docs.yml", "on: push\njobs:\n  docs:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo docs\n");
        commit();
        assertThat(WorkflowFinder.derive(repo, "HEAD", null).workflowPath()).isEqualTo(".github/workflows/test-windows.yml");
    }

    private void write(String name, String text) throws IOException {
        Path f = repo.resolve(".github/workflows").resolve(name);
        Files.createDirectories(f.getParent());
        Files.writeString(f, text);
    }

    private void commit() throws Exception {
        if (!Files.exists(repo.resolve(".git"))) git("init", "-q", "-b", "main");
        git("add", "-A");
        git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "change");
    }

    private void git(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("git", "-C", repo.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
    }
}
