package dev.crucible.cli.imports;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.cli.Main;
import dev.crucible.verifier.pristine.TreeCopy;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code crucible import harbor} on a task written to Harbor 0.25's own template (test resources harbor/count-words:
 * task.toml, instruction.md, environment/Dockerfile copying words.txt into WORKDIR /app, tests/test.sh and
 * test_outputs.py with absolute /app paths, solution/solve.sh): the imported folder runs under the real
 * {@code crucible run}, where the task's own solution scores 1 and a no-op scores 0. Bad task folders are refused
 * with the file and the field named, exit 2, and nothing written.
 */
@Timeout(300)
class HarborImportTest {
    record Cli(int exit, String out, String err) {}

    static Cli crucible(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        return new Cli(cl.execute(args), out.toString(), err.toString());
    }

    static Path task() {
        Path p = Path.of("src/test/resources/harbor/count-words").toAbsolutePath();
        assertThat(p.resolve("task.toml")).exists();
        return p;
    }

    private static JsonNode runWith(Path manifest, Path out, String agentCmd) throws Exception {
        Cli r = crucible("run", "-f", manifest.toString(), "--agent-cmd", agentCmd, "--out", out.toString());
        Path result = out.resolve("result.json");
        assertThat(result).as(r.out() + r.err()).exists();
        return new ObjectMapper().readTree(result.toFile());
    }

    @Test
    void solutionScoresOneAndNoOpScoresZero(@TempDir Path dir) throws Exception {
        Path folder = dir.resolve("imported");
        Cli imp = crucible("import", "harbor", task().toString(), "--out", folder.toString());
        assertThat(imp.exit()).as(imp.out() + imp.err()).isZero();
        assertThat(imp.out()).contains("note: hidden-tests/tests/test_outputs.py", "note: solution/solve.sh", "imported count-words");
        assertThat(folder.resolve("workspace/words.txt")).hasSameTextualContentAs(task().resolve("environment/words.txt"));
        assertThat(folder.resolve("workspace/count.txt")).doesNotExist();
        assertThat(folder.resolve("hidden-tests/tests/test_outputs.py")).content().contains("Path(\"count.txt\")").doesNotContain("/app");
        String manifest = Files.readString(folder.resolve("environment.yaml"));
        assertThat(manifest).contains("mountPath: /app", "tests/test_outputs.py", "Count the words", "memory: 1024Mi", "timeoutSeconds: 120");

        JsonNode solved = runWith(folder.resolve("environment.yaml"), dir.resolve("solved"), "bash " + folder.resolve("solution/solve.sh"));
        assertThat(solved.path("reward").asDouble()).as(solved.toString()).isEqualTo(1.0);
        assertThat(solved.path("phase").asText()).isEqualTo("Succeeded");

        JsonNode noop = runWith(folder.resolve("environment.yaml"), dir.resolve("noop"), "true");
        assertThat(noop.path("reward").asDouble()).as(noop.toString()).isEqualTo(0.0);
        assertThat(noop.path("tests").toString()).as("both tests ran and failed").contains("\"failed\":2", "test_count_is_the_number_of_words");
    }

    @Test
    void reimportReplacesItsOwnFolderButNeverAnotherOne(@TempDir Path dir) throws Exception {
        Path folder = dir.resolve("imported");
        assertThat(crucible("import", "harbor", task().toString(), "-o", folder.toString()).exit()).isZero();
        assertThat(crucible("import", "harbor", task().toString(), "-o", folder.toString()).exit()).isZero();
        Path other = Files.createDirectories(dir.resolve("mine"));
        Files.writeString(other.resolve("keep.txt"), "x");
        Cli r = crucible("import", "harbor", task().toString(), "-o", other.toString());
        assertThat(r.exit()).isEqualTo(Main.EXIT_INVALID);
        assertThat(r.err()).contains("exists and is not a folder `crucible import` wrote");
        assertThat(other.resolve("keep.txt")).hasContent("x");
    }

    private static Cli importBroken(Path dir, String file, String content) throws Exception {
        Path t = dir.resolve("task");
        TreeCopy.copy(task(), t);
        if (content == null) Files.delete(t.resolve(file)); else Files.writeString(t.resolve(file), content);
        Cli r = crucible("import", "harbor", t.toString(), "-o", dir.resolve("out").toString());
        assertThat(dir.resolve("out")).as("nothing written for refused input").doesNotExist();
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(Main.EXIT_INVALID);
        return r;
    }

    @Test
    void missingTaskTomlIsNamed(@TempDir Path dir) throws Exception {
        assertThat(importBroken(dir, "task.toml", null).err()).contains("task.toml: missing");
    }

    @Test
    void badTomlNamesFileAndLine(@TempDir Path dir) throws Exception {
        Cli r = importBroken(dir, "task.toml", "schema_version = \"1.4\"\n\n[verifier]\ntimeout_sec = = 3\n");
        assertThat(r.err()).contains("task.toml:4:");
    }

    @Test
    void wrongTypeNamesTheField(@TempDir Path dir) throws Exception {
        Cli r = importBroken(dir, "task.toml", "[verifier]\ntimeout_sec = \"soon\"\n");
        assertThat(r.err()).contains("task.toml: verifier.timeout_sec: expected a positive number");
    }

    @Test
    void missingOrEmptyInstructionIsNamed(@TempDir Path dir) throws Exception {
        assertThat(importBroken(dir.resolve("a"), "instruction.md", null).err()).contains("instruction.md: missing");
        assertThat(importBroken(dir.resolve("b"), "instruction.md", "  \n").err()).contains("instruction.md: empty");
    }

    @Test
    void taskWithoutPytestFilesIsRefused(@TempDir Path dir) throws Exception {
        assertThat(importBroken(dir, "tests/test_outputs.py", null).err()).contains("tests: no pytest file");
    }

    @Test
    void copyLeavingTheBuildContextIsRefused(@TempDir Path dir) throws Exception {
        Cli r = importBroken(dir, "environment/Dockerfile", "FROM python:3.12-slim\nWORKDIR /app\nCOPY ../task.toml /app/\n");
        assertThat(r.err()).contains("environment/Dockerfile:3: COPY source leaves the build context");
    }
}
