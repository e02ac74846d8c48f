package dev.crucible.cli.verify;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code crucible verify} on real workspaces copied from the bundled example. */
class VerifyCommandTest {
    @TempDir
    Path dir;

    record Run(int code, String out, String err) {}

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new VerifyCommand()).setOut(new PrintWriter(out)).setErr(new PrintWriter(err));
        int code = cl.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    static Path example() {
        Path d = Path.of("").toAbsolutePath();
        while (d != null && !Files.isDirectory(d.resolve("examples/python-bugfix"))) d = d.getParent();
        return d.resolve("examples/python-bugfix");
    }

    Path finishedWorkspace() throws IOException {
        Path ws = dir.resolve("finished");
        try (Stream<Path> s = Files.walk(example().resolve("workspace"))) {
            for (Path p : s.sorted(Comparator.naturalOrder()).toList()) {
                Path t = ws.resolve(example().resolve("workspace").relativize(p).toString());
                if (Files.isDirectory(p)) Files.createDirectories(t);
                else if (!p.toString().contains("__pycache__")) Files.copy(p, t);
            }
        }
        return ws;
    }

    @Test
    void honestWorkspaceGetsRewardOne() throws Exception {
        Path ws = finishedWorkspace();
        Path ops = ws.resolve("calc/ops.py");
        Files.writeString(ops, Files.readString(ops).replace("    return abs(a) / abs(b)",
                "    if b == 0:\n        raise ValueError(\"division by zero\")\n    return a / b"));
        Run r = run("-f", example().resolve("environment.yaml").toString(), "--workspace", ws.toString());
        assertThat(r.code()).as(r.err()).isZero();
        JsonNode j = new ObjectMapper().readTree(r.out());
        assertThat(j.get("reward").asDouble()).isEqualTo(1.0);
        assertThat(j.get("hackFindings")).isEmpty();
    }

    @Test
    void tamperedWorkspaceIsGradedFromPristineAndFlagged() throws Exception {
        Path ws = finishedWorkspace();
        Files.writeString(ws.resolve("tests/test_ops.py"), "def test_divide_negative():\n    pass\n\n\ndef test_divide_by_zero():\n    pass\n");
        Files.writeString(ws.resolve("conftest.py"), "import pytest\n\ndef pytest_collection_modifyitems(items):\n    pass\n");
        Run r = run("-f", example().resolve("environment.yaml").toString(), "--workspace", ws.toString());
        assertThat(r.code()).isZero();
        JsonNode j = new ObjectMapper().readTree(r.out());
        assertThat(j.get("reward").asDouble()).isZero();
        assertThat(j.get("flagged").asBoolean()).isTrue();
        assertThat(j.get("hackFindings").toString()).contains("protected-path-modified").contains("tests/test_ops.py").contains("conftest.py");
    }

    @Test
    void badInputExitsTwoNamingTheFileAndField() throws Exception {
        Run missing = run("--workspace", dir.toString());
        assertThat(missing.code()).isEqualTo(2);
        assertThat(missing.err()).contains("-f ENV.yaml: required");
        Path bad = dir.resolve("bad.yaml");
        Files.writeString(bad, "kind: RLEnvironment\nspec:\n  verifier:\n    type: test-suite\n    command: pytest\n    rewardMode: best\n");
        Run r = run("-f", bad.toString(), "--workspace", dir.toString());
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains(bad.toString()).contains("spec.verifier.rewardMode");
        Run nows = run("-f", example().resolve("environment.yaml").toString(), "--workspace", dir.resolve("nope").toString());
        assertThat(nows.code()).isEqualTo(2);
        assertThat(nows.err()).contains("--workspace").contains("no such directory");
    }

    @Test
    void benchPrintsPhasesAndTheSummaryLineLast() {
        Run r = run("bench", "-f", example().resolve("environment.yaml").toString(), "--runs", "1", "--monitor-window", "1", "--synthetic-tests", "0",
                "--call-tests", "0", "--child-tests", "0");
        assertThat(r.code()).as(r.err()).isZero();
        String[] lines = r.out().strip().split("\n");
        assertThat(lines).hasSize(3);
        assertThat(lines[0]).startsWith("phases_ms suite=example runs=1 kill=");
        assertThat(lines[1]).startsWith("suite=example tests=4 bare_s=");
        assertThat(lines[2]).matches("bare_s=\\d+\\.\\d{3} graded_s=\\d+\\.\\d{3} overhead_ratio=\\d+\\.\\d{3} cold_overhead_ratio=(\\d+\\.\\d{3}|NaN) monitor_cpu_pct=\\d+\\.\\d{3} grading=(box|unconfined) integrity=(isolated|in-process|none) isolated_vs_inprocess=\\d+\\.\\d{3}");
        Run bad = run("bench", "-f", example().resolve("environment.yaml").toString(), "--synthetic-tests", "-1");
        assertThat(bad.code()).isEqualTo(2);
        assertThat(bad.err()).contains("--synthetic-tests");
        Run badCalls = run("bench", "-f", example().resolve("environment.yaml").toString(), "--call-tests", "-1");
        assertThat(badCalls.code()).isEqualTo(2);
        assertThat(badCalls.err()).contains("--call-tests");
        Run badChildren = run("bench", "-f", example().resolve("environment.yaml").toString(), "--child-tests", "-1");
        assertThat(badChildren.code()).isEqualTo(2);
        assertThat(badChildren.err()).contains("--child-tests");
    }
}
