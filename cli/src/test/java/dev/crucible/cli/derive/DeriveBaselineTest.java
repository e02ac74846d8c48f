package dev.crucible.cli.derive;

import static dev.crucible.cli.derive.BuiltRepos.write;
import static dev.crucible.cli.derive.CliInProcess.cli;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.crucible.cli.derive.CliInProcess.Result;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 35 point 2: {@code crucible derive --baseline} on a repository whose CI runs pytest through make, with
 * a test that needs the network and one that fails at HEAD whatever the agent does. The baseline (two real
 * no-op runs through {@code crucible run}) lists the passing tests as passToPass and excludes the other two
 * with their reasons, so the derived environment gives a no-op agent reward 1 and a breaking agent 0.
 */
class DeriveBaselineTest {
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
                  - run: make test
            """;

    @TempDir
    Path dir;

    @Test
    void theBaselineListsWhatPassesAtHeadAndExcludesWhatCannot() throws Exception {
        Path repo = dir.resolve("calc");
        write(repo, ".github/workflows/ci.yml", WORKFLOW);
        write(repo, "Makefile", ".PHONY: test\ntest:\n\tpython -m pytest -q tests\n");
        write(repo, "calc.py", "def add(a, b):\n    return a + b\n");
        write(repo, "tests/test_calc.py", """
                import socket

                from calc import add


                def test_add():
                    assert add(2, 3) == 5


                def test_zero():
                    assert add(0, 0) == 0


                def test_fetches_a_page():
                    socket.create_connection(("example.com", 80), timeout=5).close()


                def test_drifted():
                    assert add(1, 1) == 3, "expected what an old dependency gave"
                """);
        git(repo, "init", "-q", "-b", "main");
        git(repo, "add", "-A");
        git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "initial");

        Path manifest = dir.resolve("env.yaml");
        Path report = dir.resolve("env.report.json");
        Result derive = cli("derive", "--repo", repo.toString(), "--commit", "HEAD", "--workflow", "ci.yml", "--baseline",
                "-o", manifest.toString(), "--report", report.toString());
        assertThat(derive.exit()).as(derive.err()).isZero();
        assertThat(derive.err()).contains("4 tests, 2 pass both times (passToPass), 2 excluded");

        JsonNode v = new YAMLMapper().readTree(manifest.toFile()).path("spec").path("verifier");
        assertThat(v.path("type").asText()).isEqualTo("test-suite");
        assertThat(v.path("passToPass").toString()).contains("tests/test_calc.py::test_add", "tests/test_calc.py::test_zero")
                .doesNotContain("test_drifted", "test_fetches_a_page");
        Map<String, String> excluded = new java.util.LinkedHashMap<>();
        v.path("excludedTests").forEach(e -> excluded.put(e.path("id").asText(), e.path("reason").asText()));
        assertThat(excluded).containsOnlyKeys("tests/test_calc.py::test_fetches_a_page", "tests/test_calc.py::test_drifted");
        assertThat(excluded.get("tests/test_calc.py::test_fetches_a_page")).startsWith("fails at the task commit without network");
        assertThat(excluded.get("tests/test_calc.py::test_drifted")).contains("fails at the task commit with a no-op agent")
                .contains("expected what an old dependency gave");
        JsonNode baseline = new ObjectMapper().readTree(report.toFile()).path("baseline");
        assertThat(baseline.path("usable").asBoolean()).isTrue();
        assertThat(baseline.path("passToPass").asInt()).isEqualTo(2);
        // the runs' results stay beside the manifest; their scratch (workspaces, the venv) is gone
        Path kept = dir.resolve("env.baseline");
        assertThat(kept.resolve("baseline-1/result.json")).isRegularFile();
        assertThat(kept.resolve("baseline-2/result.json")).isRegularFile();
        assertThat(kept.resolve("baseline-1/setup.log")).isRegularFile();
        assertThat(kept.resolve("baseline-1/sandbox")).doesNotExist();
        java.util.regex.Matcher scratch = java.util.regex.Pattern.compile("\\(scratch (\\S+);").matcher(derive.err());
        assertThat(scratch.find()).as(derive.err()).isTrue();
        assertThat(Path.of(scratch.group(1))).doesNotExist();
        assertThat(derive.err()).contains("result.json and logs are in " + kept);
        // the verdict is written before the scratch is deleted (a batch that stops derive during the deletion has it)
        assertThat(derive.err().indexOf("crucible derive: wrote ")).isPositive()
                .isLessThan(derive.err().indexOf("crucible derive: baseline: deleting the scratch " + scratch.group(1)));

        assertThat(cli("validate", "-f", manifest.toString()).exit()).isZero();
        JsonNode noOp = run(manifest, "true", "noop");
        assertThat(noOp.path("reward").asDouble()).as(noOp.toString()).isEqualTo(1.0);
        JsonNode breaking = run(manifest, "printf 'def add(a, b):\\n    return a - b\\n' > calc.py", "breaking");
        assertThat(breaking.path("reward").asDouble()).isEqualTo(0.0);
    }

    @Test
    void aCommitWhereNothingPassesIsUnusableAndSaysWhy() throws Exception {
        Path repo = dir.resolve("broken");
        write(repo, ".github/workflows/ci.yml", WORKFLOW);
        write(repo, "Makefile", ".PHONY: test\ntest:\n\tpython -m pytest -q tests\n");
        write(repo, "tests/test_x.py", "def test_x():\n    assert False\n");
        git(repo, "init", "-q", "-b", "main");
        git(repo, "add", "-A");
        git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "initial");
        Result derive = cli("derive", "--repo", repo.toString(), "--commit", "HEAD", "--workflow", "ci.yml", "--baseline",
                "-o", dir.resolve("broken.yaml").toString());
        assertThat(derive.exit()).as(derive.err()).isEqualTo(1);
        assertThat(derive.err()).contains("unusable at HEAD: no test passes at the task commit in both baseline runs");
    }

    @Test
    void aNoOpRunWithACountedFindingIsUnusableAndNamesIt() throws Exception {
        // probemeasure: psf/requests' own suite was Hacked at reward 0 in both no-op runs and derive still said usable, so
        // every honest agent would get 0. Here the project's own code reads another process's /proc entry while a test
        // runs (a counted attempt that leaves the test passed, as requests' HOME read did): unusable, naming the finding.
        Path repo = dir.resolve("flagged");
        write(repo, ".github/workflows/ci.yml", WORKFLOW);
        write(repo, "Makefile", ".PHONY: test\ntest:\n\tpython -m pytest -q tests\n");
        write(repo, "calc.py", """
                def add(a, b):
                    try:  # what init runs us under, best effort: the test passes either way, only the finding floors it
                        with open("/proc/1/cmdline", "rb") as f:
                            f.read()
                    except OSError:
                        pass
                    return a + b
                """);
        write(repo, "tests/test_calc.py", "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n");
        git(repo, "init", "-q", "-b", "main");
        git(repo, "add", "-A");
        git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "initial");
        Path report = dir.resolve("flagged.report.json");
        Result derive = cli("derive", "--repo", repo.toString(), "--commit", "HEAD", "--workflow", "ci.yml", "--baseline",
                "-o", dir.resolve("flagged.yaml").toString(), "--report", report.toString());
        assertThat(derive.exit()).as(derive.err()).isEqualTo(1);
        assertThat(derive.err()).contains("unusable at HEAD: baseline run 1 at the task commit with a no-op agent ended Hacked with")
                .contains("/proc/1/cmdline");
        JsonNode baseline = new ObjectMapper().readTree(report.toFile()).path("baseline");
        assertThat(baseline.path("usable").asBoolean()).as(baseline.toString()).isFalse();
        assertThat(baseline.path("unusable").asText()).contains("counted finding").contains("/proc/1/cmdline");
        assertThat(dir.resolve("flagged.baseline/baseline-2")).as("the first run's finding decides: no second run").doesNotExist();
    }

    @Test
    void aSetupThatFailsNamesTheKeptLogNotTheDeletedScratch() throws Exception {
        Path repo = dir.resolve("nosetup");
        write(repo, ".github/workflows/ci.yml", WORKFLOW.replace("      - run: make test", "      - run: ./scripts/bootstrap.sh\n      - run: make test"));
        write(repo, "Makefile", ".PHONY: test\ntest:\n\tpython -m pytest -q tests\n");
        write(repo, "tests/test_x.py", "def test_x():\n    assert True\n");
        git(repo, "init", "-q", "-b", "main");
        git(repo, "add", "-A");
        git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "initial");
        Result derive = cli("derive", "--repo", repo.toString(), "--commit", "HEAD", "--workflow", "ci.yml", "--baseline",
                "-o", dir.resolve("nosetup.yaml").toString());
        assertThat(derive.exit()).as(derive.err()).isEqualTo(1);
        Path kept = dir.resolve("nosetup.baseline");
        java.util.regex.Matcher see = java.util.regex.Pattern.compile("see (\\S+setup\\.log)").matcher(derive.err());
        assertThat(see.find()).as(derive.err()).isTrue();
        assertThat(Path.of(see.group(1))).startsWith(kept).isRegularFile();
        assertThat(Files.readString(Path.of(see.group(1)))).contains("bootstrap.sh");
    }

    private JsonNode run(Path manifest, String agent, String name) throws IOException {
        Path out = dir.resolve("out-" + name);
        Result run = cli("run", "-f", manifest.toString(), "--agent-cmd", agent, "--out", out.toString());
        assertThat(run.exit()).as(run.out() + run.err()).isZero();
        try (var files = Files.walk(out)) {
            Path result = files.filter(p -> p.getFileName().toString().equals("result.json")).findFirst().orElseThrow();
            return new ObjectMapper().readTree(result.toFile());
        }
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
