package dev.crucible.cli.derive;

import static dev.crucible.cli.derive.BuiltRepos.write;
import static dev.crucible.cli.derive.CliInProcess.cli;
import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.cli.derive.CliInProcess.Result;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 35 point 5: a reference patch larger than one process argument may be (128 KiB on Linux) reaches the
 * workspace through a file (a Rollout's spec.patches, applied by crucible run), where the agent command that
 * carried it failed with "Argument list too long". Real git, pytest and crucible run.
 */
class ReferencePatchRunTest {
    @TempDir
    Path dir;

    @Test
    void aLargeReferencePatchIsAppliedThroughAFile() throws Exception {
        Path repo = dir.resolve("calc");
        write(repo, ".github/workflows/ci.yml", """
                on: [push]
                jobs:
                  tests:
                    runs-on: ubuntu-latest
                    steps:
                      - uses: actions/checkout@v4
                      - uses: actions/setup-python@v5
                        with:
                          python-version: "3.11"
                      - run: python -m pytest -q tests
                """);
        write(repo, "calc.py", "def add(a, b):\n    return a - b\n");
        write(repo, "tests/test_calc.py", "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n");
        git(repo, "init", "-q", "-b", "main");
        git(repo, "add", "-A");
        git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "initial");
        StringBuilder table = new StringBuilder("TABLE = [\n");
        for (int i = 0; i < 12_000; i++) table.append("    ").append(i).append(",  # an entry of a generated table\n");
        write(repo, "table.py", table.append("]\n").toString());
        write(repo, "calc.py", "from table import TABLE\n\n\ndef add(a, b):\n    return a + b\n");
        git(repo, "add", "-A");
        String patch = git(repo, "diff", "--cached");
        git(repo, "reset", "-q", "--hard");
        assertThat(patch.length()).isGreaterThan(256 * 1024);

        Path manifest = dir.resolve("env.yaml");
        Result derive = cli("derive", "--repo", repo.toString(), "--commit", "HEAD", "--workflow", "ci.yml", "-o", manifest.toString());
        assertThat(derive.exit()).as(derive.err()).isZero();

        LocalRuns.Outcome patched = LocalRuns.runPatched(manifest, patch, dir.resolve("patched"));
        assertThat(patched.reward()).as(patched.message()).isEqualTo(1.0);
        assertThat(patched.passed("tests/test_calc.py::test_add")).isTrue();

        LocalRuns.Outcome inArgument = LocalRuns.run(manifest, FixTasksTest.applyPatchCommand(patch), dir.resolve("argument"));
        assertThat(inArgument.reward()).as("the patch as the agent command's argument: " + inArgument.message()).isNull();
        assertThat(inArgument.message()).contains("Argument list too long");
    }

    private static String git(Path repo, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("git", "-C", repo.toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) throw new IOException("git " + String.join(" ", args) + " failed: " + output);
        return output;
    }
}
