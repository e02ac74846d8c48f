package dev.crucible.cli.derive;

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
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 15 point 5 on a synthetic repository with a real bug: {@code crucible derive --fixes} cuts a task
 * from the fix commit (failToPass/passToPass from really running pytest before and after), refuses the
 * commit whose new test already passes before it, skips the commit that touches no tests, and the
 * written task scores the reference patch 1 and a no-op agent 0 through the real local runtime.
 */
class FixTasksTest {
    private static final String WORKFLOW = """
            name: CI
            on: [push]
            jobs:
              docs:
                runs-on: ubuntu-latest
                steps:
                  - run: echo "no docs yet"
              tests:
                runs-on: ubuntu-latest
                steps:
                  - uses: actions/checkout@v4
                  - uses: actions/setup-python@v5
                    with:
                      python-version: "3.11"
                  - run: python -m pytest -q tests
            """;

    @TempDir
    Path dir;
    Path repo;
    String fixCommit;
    String notAFix;
    String alreadyPasses;

    @BeforeEach
    void repository() throws Exception {
        repo = dir.resolve("calc");
        write(".github/workflows/ci.yml", WORKFLOW);
        write("calc/__init__.py", "");
        write("calc/ops.py", """
                def add(a, b):
                    return a + b


                def divide(a, b):
                    return a // b
                """);
        write("tests/test_ops.py", """
                from calc.ops import add, divide


                def test_add():
                    assert add(2, 3) == 5


                def test_divide_exact():
                    assert divide(6, 3) == 2
                """);
        git("init", "-q", "-b", "main");
        commit("initial");
        write("calc/ops.py", """
                def add(a, b):
                    return a + b


                def divide(a, b):
                    return a / b
                """);
        write("tests/test_ops.py", Files.readString(repo.resolve("tests/test_ops.py")) + """


                def test_divide_fraction():
                    assert divide(1, 2) == 0.5
                """);
        fixCommit = commit("divide: true division, not floor division");
        write("README.md", "# calc\n");
        notAFix = commit("readme");
        write("calc/ops.py", Files.readString(repo.resolve("calc/ops.py")).replace("def add(a, b):\n",
                "def add(a, b):\n    \"\"\"The sum.\"\"\"\n"));
        write("tests/test_ops.py", Files.readString(repo.resolve("tests/test_ops.py")) + """


                def test_add_negative():
                    assert add(-2, -3) == -5
                """);
        alreadyPasses = commit("add: docstring and one more test");
    }

    @Test
    void fixCommitsBecomeTasksThatScoreTheReferenceOneAndANoOpZero() throws Exception {
        Path tasks = dir.resolve("tasks");
        // one task wanted: the newest candidate is refused, so the scan goes on to the next, which becomes the task
        Result scan = cli("derive", "--repo", repo.toString(), "--fixes", "1", "-o", tasks.toString());
        assertThat(scan.exit()).as(scan.err()).isZero();
        String shortFix = fixCommit.substring(0, 12);
        String shortPasses = alreadyPasses.substring(0, 12);
        assertThat(scan.out()).contains(shortFix).contains(shortPasses).doesNotContain(notAFix.substring(0, 12))
                .contains("1 of 2 fix commits became tasks");
        assertThat(scan.out().lines().filter(l -> l.startsWith(shortPasses)).findFirst().orElseThrow())
                .contains("refused: failToPass is empty: no test fails before the fix");
        assertThat(tasks.resolve(shortPasses)).doesNotExist();

        Path task = tasks.resolve(shortFix);
        Path manifest = task.resolve("environment.yaml");
        JsonNode env = new YAMLMapper().readTree(manifest.toFile());
        JsonNode verifier = env.at("/spec/verifier");
        assertThat(verifier.path("type").asText()).isEqualTo("test-suite");
        assertThat(verifier.path("failToPass").toString()).isEqualTo("[\"tests/test_ops.py::test_divide_fraction\"]");
        assertThat(verifier.path("passToPass").toString()).contains("tests/test_ops.py::test_add")
                .contains("tests/test_ops.py::test_divide_exact");
        assertThat(verifier.at("/hiddenTests/path").asText()).isEqualTo("hidden-tests");
        assertThat(env.at("/spec/source/commit").asText()).isEqualTo(parentOf(fixCommit));
        assertThat(env.at("/spec/workspace").isMissingNode()).isTrue();
        assertThat(env.at("/spec/task/prompt").asText()).contains("divide: true division");
        assertThat(env.at("/metadata/annotations/crucible.dev~1fix-commit").asText()).isEqualTo(fixCommit);
        assertThat(Files.readString(task.resolve("hidden-tests/tests/test_ops.py"))).contains("test_divide_fraction");
        String reference = Files.readString(task.resolve("reference.patch"));
        assertThat(reference).contains("calc/ops.py").contains("+    return a / b").doesNotContain("tests/");

        Result validate = cli("validate", "-f", manifest.toString());
        assertThat(validate.exit()).as(validate.out() + validate.err()).isZero();

        JsonNode gold = run(manifest, applyPatchCommand(reference), "gold");
        assertThat(gold.path("reward").asDouble()).as(gold.toString()).isEqualTo(1.0);
        JsonNode noop = run(manifest, "true", "noop");
        assertThat(noop.path("reward").asDouble()).as(noop.toString()).isEqualTo(0.0);
        // The workspace is the parent commit: the old test file is there, the fix's new test and the
        // reference patch are not; this agent applies the fix only when all of that holds.
        JsonNode probe = run(manifest, "test ! -e reference.patch && test ! -e ../reference.patch"
                + " && grep -q test_divide_exact tests/test_ops.py && ! grep -q test_divide_fraction tests/test_ops.py"
                + " && " + applyPatchCommand(reference), "probe");
        assertThat(probe.path("reward").asDouble()).as(probe.toString()).isEqualTo(1.0);
    }

    @Test
    void aFixWhoseTestsPassBeforeIsRefusedWithItsReason() throws Exception {
        Path task = dir.resolve("refused");
        Result r = cli("derive", "--repo", repo.toString(), "--fix", alreadyPasses, "-o", task.toString());
        assertThat(r.exit()).isEqualTo(FixCommands.REFUSED);
        assertThat(r.err().lines().filter(l -> l.startsWith("crucible derive:")).toList()).singleElement().asString()
                .contains("--fix " + alreadyPasses).contains("refused: failToPass is empty: no test fails before the fix");
        assertThat(task).doesNotExist();

        Result none = cli("derive", "--repo", repo.toString(), "--fix", notAFix, "-o", task.toString());
        assertThat(none.exit()).isEqualTo(FixCommands.REFUSED);
        assertThat(none.err()).contains("refused: the commit adds or changes no test files");
    }

    /** A fix that also edits test configuration the task protects (tox.ini): the reference leaves that file out, as an agent must. */
    @Test
    void theReferenceLeavesOutWhatTheTaskProtects() throws Exception {
        write("calc/ops.py", Files.readString(repo.resolve("calc/ops.py")) + "\n\ndef sub(a, b):\n    return a - b\n");
        write("tests/test_sub.py", "from calc.ops import sub\n\n\ndef test_sub():\n    assert sub(5, 3) == 2\n");
        write("tox.ini", "[tox]\nenvlist = py311\n\n[testenv]\ncommands = pytest\n");
        String fix = commit("sub, with a tox configuration");
        Path task = dir.resolve("with-tox");
        Result r = cli("derive", "--repo", repo.toString(), "--fix", fix, "-o", task.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(Files.readString(task.resolve("reference.patch"))).contains("calc/ops.py").doesNotContain("tox.ini");
        assertThat(Files.readString(task.resolve("environment.yaml"))).contains("# the reference solution leaves out what the task protects (no agent may change it): tox.ini");
    }

    /** A fix older than the workflow file it is asked with (renamed since) takes the one at HEAD. */
    @Test
    void aFixOlderThanTheWorkflowFileTakesTodays() throws Exception {
        git("mv", ".github/workflows/ci.yml", ".github/workflows/tests.yml");
        commit("ci: rename the workflow");
        Path task = dir.resolve("renamed");
        Result r = cli("derive", "--repo", repo.toString(), "--fix", fixCommit, "--workflow", ".github/workflows/tests.yml",
                "-o", task.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("1 failToPass");
        assertThat(task.resolve("environment.yaml")).exists();
    }

    @Test
    void doctestsOfSourceModulesStayOutOfTheTestLists() {
        // Listing them would protect the module the reference patch changes (toolz 5a7e078c: floored gold).
        assertThat(FixTasks.inTestFile("toolz/itertoolz.py::toolz.itertoolz.partition_all")).isFalse();
        assertThat(FixTasks.inTestFile("toolz/tests/test_itertoolz.py::test_partition_all")).isTrue();
        assertThat(FixTasks.inTestFile("tests/test_ops.py::TestX::test_y")).isTrue();
    }

    private JsonNode run(Path manifest, String agent, String name) throws IOException {
        Path out = dir.resolve("out-" + name);
        Result run = cli("run", "-f", manifest.toString(), "--agent-cmd", agent, "--out", out.toString());
        try (var files = Files.walk(out)) {
            Path result = files.filter(p -> p.getFileName().toString().equals("result.json")).findFirst()
                    .orElseThrow(() -> new AssertionError(run.out() + run.err()));
            return new ObjectMapper().readTree(result.toFile());
        }
    }

    private void write(String path, String content) throws IOException {
        Path file = repo.resolve(path);
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
    }

    private String commit(String message) throws Exception {
        git("add", "-A");
        git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", message);
        return git("rev-parse", "HEAD").strip();
    }

    private String parentOf(String commit) throws Exception {
        return git("rev-parse", commit + "^").strip();
    }

    private String git(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("git", "-C", repo.toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("git " + String.join(" ", args) + " failed: " + output);
        }
        return output;
    }

    /** An agent command that applies {@code patch} itself (a quoted here-document), as a trainer's agent might. */
    static String applyPatchCommand(String patch) {
        String end = "CRUCIBLE_REFERENCE_PATCH_END";
        while (patch.contains(end)) end = end + "_";
        return "git apply --whitespace=nowarn <<'" + end + "'\n" + (patch.endsWith("\n") ? patch : patch + "\n") + end;
    }
}
