package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.crucible.verifier.sandbox.Box;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * CI grades a checkout with git metadata; fzf's Makefile stops with "Not on git repository" before its tests when
 * {@code git describe} finds no tag, and the grading tree had no .git. A repository made here, tagged, whose
 * {@code make test} reads the tag the same way: graded with the task repository's .git as it was before the agent
 * ran, so an agent that deletes the tag in its own .git changes nothing for grading. {@code git describe} without
 * {@code --tags}, as fzf's, sees only annotated tags: the task repository carries the source's annotated tag as one.
 */
@Timeout(600)
class GradingGitTest {

    @Test
    void aMakefileThatReadsTheVersionTagRunsItsTestsInGrading(@TempDir Path dir) throws Exception {
        assumeTrue(Box.availability().ok(), "bubblewrap: " + Box.availability().problem());
        assumeTrue(onPath("make") && onPath("git"), "make and git");
        Path ws = Files.createDirectories(dir.resolve("workspace"));
        Files.createDirectories(ws.resolve("tests"));
        Files.writeString(ws.resolve("Makefile"), """
                VERSION := $(shell git describe --abbrev=0 2> /dev/null | sed "s/^v//")
                ifeq ($(VERSION),)
                $(error Not on git repository; cannot determine VERSION)
                endif
                REVISION := $(shell git log -n 1 --pretty=format:%h --abbrev=8 2> /dev/null)
                ifeq ($(REVISION),)
                $(error Not on git repository; cannot determine REVISION)
                endif

                test:
                \tVERSION=$(VERSION) python3 -m pytest -q
                """);
        Files.writeString(ws.resolve("tests/test_version.py"), """
                import os


                def test_version():
                    assert os.environ["VERSION"] == "1.2.3"
                """);
        git(ws, "init", "-q", "-b", "main");
        git(ws, "add", "-A");
        git(ws, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "init");
        git(ws, "-c", "user.name=t", "-c", "user.email=t@t", "tag", "-a", "v1.2.3", "-m", "v1.2.3");
        Path m = dir.resolve("environment.yaml");
        Files.writeString(m, """
                apiVersion: crucible.dev/v1alpha1
                kind: RLEnvironment
                metadata:
                  name: grading-git
                spec:
                  workspace:
                    path: ./workspace
                  task:
                    prompt: nothing to do
                  verifier:
                    type: test-suite
                    framework: pytest
                    command: make test
                    passToPass: [tests/test_version.py::test_version]
                    rewardMode: binary
                    timeoutSeconds: 120
                  hackPolicy:
                    action: flag
                """);
        // the agent removes the tag from its own repository: grading reads the repository as it was before the agent
        // (an agent that points git at hooks or other objects is the monitor's git-redirect finding besides)
        String agent = "git tag -d v1.2.3";
        LocalRuns.Run r = LocalRuns.run("-f", m.toString(), "--agent-cmd", agent, "--out", dir.resolve("out").toString());
        JsonNode res = LocalRuns.json(dir.resolve("out/result.json"));
        assertThat(res.path("reward").asDouble()).as(r.out() + r.err() + res.toPrettyString()).isEqualTo(1.0);
        assertThat(res.path("tests").path("passed").asInt()).isEqualTo(1);
        assertThat(res.path("tests").toString()).contains("tests/test_version.py::test_version");
    }

    private static boolean onPath(String program) throws IOException, InterruptedException {
        return new ProcessBuilder("bash", "-c", "command -v " + program).start().waitFor() == 0;
    }

    private static void git(Path dir, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("git", "-C", dir.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) throw new IOException("git " + String.join(" ", args) + ": " + out);
    }
}
