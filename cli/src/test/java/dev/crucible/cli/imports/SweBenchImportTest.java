package dev.crucible.cli.imports;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.crucible.cli.Main;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code crucible import swebench} on an instance the test writes the way SWE-bench's are made: a small Python
 * package in a git repository the test builds (a CI workflow that pip-installs it and runs pytest, a bug, then the
 * upstream-style fix commit with its new test), the instance's patch and test_patch taken from that commit's diff.
 * The imported folder runs under the real {@code crucible run}: the gold patch scores 1, a no-op 0 (the hidden
 * FAIL_TO_PASS test fails). Bad instances are refused with the file and the field named, exit 2, nothing written.
 */
@Timeout(600)
class SweBenchImportTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    static String git(Path dir, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("git", "-c", "user.name=t", "-c", "user.email=t@example.com",
                "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(String.join(" ", args) + ": " + out).isZero();
        return out;
    }

    static void write(Path root, String file, String text) throws IOException {
        Path p = root.resolve(file);
        Files.createDirectories(p.getParent());
        Files.writeString(p, text);
    }

    /** The repository (base commit, then the fix) and the instance cut from the fix; returns the instance file. */
    static Path instance(Path dir) throws Exception {
        Path repo = Files.createDirectories(dir.resolve("tinycalc"));
        git(repo, "init", "-q");
        write(repo, "pyproject.toml", """
                [build-system]
                requires = ["setuptools>=61"]
                build-backend = "setuptools.build_meta"

                [project]
                name = "tinycalc"
                version = "0.1.0"
                """);
        write(repo, ".github/workflows/tests.yml", """
                name: tests
                on: [push, pull_request]
                jobs:
                  test:
                    runs-on: ubuntu-latest
                    steps:
                      - uses: actions/checkout@v4
                      - uses: actions/setup-python@v5
                        with:
                          python-version: "3.11"
                      - run: pip install -e . pytest
                      - run: pytest tests
                """);
        write(repo, "tinycalc/__init__.py", "");
        write(repo, "tinycalc/ops.py", "def mean(xs):\n    return sum(xs) / len(xs)\n");
        write(repo, "tests/test_ops.py", "from tinycalc.ops import mean\n\n\ndef test_mean():\n    assert mean([1, 2, 3]) == 2\n");
        git(repo, "add", "-A");
        git(repo, "commit", "-q", "-m", "tinycalc");
        String base = git(repo, "rev-parse", "HEAD").strip();
        write(repo, "tinycalc/ops.py", "def mean(xs):\n    if not xs:\n        raise ValueError(\"mean of nothing\")\n"
                + "    return sum(xs) / len(xs)\n");
        write(repo, "tests/test_ops.py", "import pytest\n\nfrom tinycalc.ops import mean\n\n\ndef test_mean():\n"
                + "    assert mean([1, 2, 3]) == 2\n\n\ndef test_mean_of_nothing():\n    with pytest.raises(ValueError):\n"
                + "        mean([])\n");
        git(repo, "commit", "-q", "-am", "mean([]) raises ValueError");
        ObjectNode inst = JSON.createObjectNode();
        inst.put("instance_id", "example__tinycalc-1");
        inst.put("repo", "example/tinycalc");
        inst.put("base_commit", base);
        inst.put("problem_statement", "mean([]) raises ZeroDivisionError; it should raise ValueError.");
        inst.put("patch", git(repo, "diff", base, "HEAD", "--", "tinycalc"));
        inst.put("test_patch", git(repo, "diff", base, "HEAD", "--", "tests"));
        inst.put("FAIL_TO_PASS", "[\"tests/test_ops.py::test_mean_of_nothing\"]");  // as the dataset stores it: JSON text
        inst.putArray("PASS_TO_PASS").add("tests/test_ops.py::test_mean");
        inst.put("version", "0.1");
        git(repo, "reset", "-q", "--hard", base);  // the clone a user has may sit anywhere; the commit is what counts
        Path file = dir.resolve("instance.json");
        JSON.writerWithDefaultPrettyPrinter().writeValue(file.toFile(), inst);
        return file;
    }

    private static JsonNode runWith(Path manifest, Path out, String agentCmd) throws Exception {
        HarborImportTest.Cli r = HarborImportTest.crucible("run", "-f", manifest.toString(), "--agent-cmd", agentCmd, "--out", out.toString());
        Path result = out.resolve("result.json");
        assertThat(result).as(r.out() + r.err()).exists();
        return JSON.readTree(result.toFile());
    }

    @Test
    void goldPatchScoresOneAndNoOpScoresZero(@TempDir Path dir) throws Exception {
        Path file = instance(dir);
        Path folder = dir.resolve("imported");
        HarborImportTest.Cli imp = HarborImportTest.crucible("import", "swebench", file.toString(), "--repo",
                dir.resolve("tinycalc").toString(), "--out", folder.toString());
        assertThat(imp.exit()).as(imp.out() + imp.err()).isZero();
        assertThat(imp.out()).contains("imported example__tinycalc-1", "setup from crucible derive", "note: no swebench specification: ");
        assertThat(folder.resolve("hidden-tests/tests/test_ops.py")).content().contains("test_mean_of_nothing");
        assertThat(folder.resolve("reference.patch")).content().contains("raise ValueError");
        String manifest = Files.readString(folder.resolve("environment.yaml"));
        assertThat(manifest).contains("name: example-tinycalc-1", "tests/test_ops.py::test_mean_of_nothing", "hiddenTests",
                "mean([]) raises ZeroDivisionError").doesNotContain("workspace:");
        assertThat(new com.fasterxml.jackson.dataformat.yaml.YAMLMapper().readTree(manifest).at("/spec/verifier/command").asText())
                .as("the listed tests, by id").isEqualTo("python -m pytest -rA -p no:cacheprovider 'tests/test_ops.py::test_mean_of_nothing' 'tests/test_ops.py::test_mean'");

        JsonNode gold = runWith(folder.resolve("environment.yaml"), dir.resolve("gold"), "git apply " + folder.resolve("reference.patch"));
        assertThat(gold.path("reward").asDouble()).as(gold.toString()).isEqualTo(1.0);
        assertThat(gold.path("phase").asText()).isEqualTo("Succeeded");

        JsonNode noop = runWith(folder.resolve("environment.yaml"), dir.resolve("noop"), "true");
        assertThat(noop.path("reward").asDouble()).as(noop.toString()).isEqualTo(0.0);
        assertThat(noop.path("tests").toString()).as("the hidden test ran and failed").contains("test_mean_of_nothing");
    }

    private static HarborImportTest.Cli refused(Path dir, String field, Object value) throws Exception {
        Path file = instance(dir);
        ObjectNode inst = (ObjectNode) JSON.readTree(file.toFile());
        if (value == null) inst.remove(field); else inst.set(field, JSON.valueToTree(value));
        JSON.writeValue(file.toFile(), inst);
        HarborImportTest.Cli r = HarborImportTest.crucible("import", "swebench", file.toString(), "--repo",
                dir.resolve("tinycalc").toString(), "-o", dir.resolve("out").toString());
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(Main.EXIT_INVALID);
        assertThat(dir.resolve("out")).as("nothing written for refused input").doesNotExist();
        assertThat(r.err()).contains(file.toString());
        return r;
    }

    @Test
    void missingFieldIsNamed(@TempDir Path dir) throws Exception {
        assertThat(refused(dir, "FAIL_TO_PASS", null).err()).contains("instance.json: FAIL_TO_PASS: missing");
    }

    @Test
    void wrongTypesAreNamed(@TempDir Path dir) throws Exception {
        assertThat(refused(dir.resolve("a"), "PASS_TO_PASS", "not json").err()).contains("PASS_TO_PASS: a string that is not a JSON list");
        assertThat(refused(dir.resolve("b"), "FAIL_TO_PASS", List.of(3)).err()).contains("FAIL_TO_PASS[0]: expected a test id");
        assertThat(refused(dir.resolve("c"), "repo", "requests").err()).contains("repo: expected owner/name");
        assertThat(refused(dir.resolve("d"), "version", 2.10).err()).contains("instance.json: version: expected a string, not number");
    }

    @Test
    void aNamedPythonThatCannotRunIsRefused(@TempDir Path dir) throws Exception {
        Path file = instance(dir);
        HarborImportTest.Cli r = HarborImportTest.crucible("import", "swebench", file.toString(), "--repo",
                dir.resolve("tinycalc").toString(), "--python", dir.resolve("no-python").toString(), "-o", dir.resolve("out").toString());
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(Main.EXIT_INVALID);
        assertThat(r.err()).contains("--python " + dir.resolve("no-python") + ": cannot be run");
        assertThat(dir.resolve("out")).doesNotExist();
    }

    @Test
    void commitTheCloneLacksIsNamed(@TempDir Path dir) throws Exception {
        assertThat(refused(dir, "base_commit", "0123456789abcdef0123456789abcdef01234567").err())
                .contains("base_commit: 0123456789abcdef0123456789abcdef01234567 is not a commit of");
    }

    @Test
    void testPatchThatDoesNotApplyIsNamed(@TempDir Path dir) throws Exception {
        String broken = "diff --git a/tests/test_ops.py b/tests/test_ops.py\n--- a/tests/test_ops.py\n+++ b/tests/test_ops.py\n"
                + "@@ -1,2 +1,2 @@\n-this line is not there\n+x\n context\n";
        assertThat(refused(dir, "test_patch", broken).err()).contains("test_patch: does not apply at base_commit");
    }

    @Test
    void jobTheWorkflowLacksIsNamed(@TempDir Path dir) throws Exception {
        Path file = instance(dir);
        HarborImportTest.Cli r = HarborImportTest.crucible("import", "swebench", file.toString(), "--repo",
                dir.resolve("tinycalc").toString(), "--job", "nosuch", "-o", dir.resolve("out").toString());
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(Main.EXIT_INVALID);
        assertThat(r.err()).contains("--job nosuch: crucible derive at base_commit");
        assertThat(dir.resolve("out")).doesNotExist();
    }

    @Test
    void notJsonNamesTheLine(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("bad.json");
        Files.writeString(file, "{\n  \"instance_id\": \"x\",\n  oops\n}\n");
        HarborImportTest.Cli r = HarborImportTest.crucible("import", "swebench", file.toString(), "--repo", dir.toString(),
                "-o", dir.resolve("out").toString());
        assertThat(r.exit()).isEqualTo(Main.EXIT_INVALID);
        assertThat(r.err()).contains("bad.json:3: not JSON");
        assertThat(dir.resolve("out")).doesNotExist();
    }
}
