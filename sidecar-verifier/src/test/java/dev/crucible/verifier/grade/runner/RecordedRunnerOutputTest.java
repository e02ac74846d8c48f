package dev.crucible.verifier.grade.runner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.grade.result.IntegrityFinding;
import dev.crucible.verifier.grade.result.TestCase;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * jest, vitest and mocha on output recorded from real runs (resources {@code runner-output/}, see its
 * README): per-test ids and statuses, and the cross-check that catches a report file rewritten by the
 * graded process.
 */
class RecordedRunnerOutputTest {
    @TempDir
    Path out;

    static final Path ROOT = Path.of("/ROOT");

    static String resource(String name) throws IOException {
        try (InputStream in = RecordedRunnerOutputTest.class.getResourceAsStream("/runner-output/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    ExecResult recorded(String runner) throws IOException {
        Files.writeString(out.resolve(runner + ".json"), resource(runner + ".json"));
        return new ExecResult(Integer.parseInt(resource(runner + ".exit").strip()), resource(runner + ".stdout"), resource(runner + ".stderr"),
                false, false, 100, 1);
    }

    static Map<String, String> statuses(TestRunner.Report r) {
        Map<String, String> m = new LinkedHashMap<>();
        for (TestCase t : r.tests()) m.put(t.id(), t.status().json());
        return m;
    }

    @Test
    void jest() throws IOException {
        TestRunner.Report r = new JestRunner(false).read(recorded("jest"), out, ROOT);
        assertThat(statuses(r)).containsExactly(Map.entry("jt/calc.test.js::calc > adds", "passed"), Map.entry("jt/calc.test.js::calc > fails", "failed"),
                Map.entry("jt/calc.test.js::calc > skipped", "skipped"), Map.entry("jt/calc.test.js::dns", "failed"),
                Map.entry("jt/broken.test.js::(file)", "error"));
        assertThat(r.findings()).isEmpty();
        assertThat(r.tests().get(3).message()).contains("ENOTFOUND");
    }

    @Test
    void jestReportRewrittenToPassIsCaughtByItsOwnSummary() throws IOException {
        ExecResult run = recorded("jest");
        Files.writeString(out.resolve("jest.json"), resource("jest.json").replace("\"status\":\"failed\"", "\"status\":\"passed\""));
        TestRunner.Report r = new JestRunner(false).read(run, out, ROOT);
        assertThat(r.findings()).extracting(IntegrityFinding::severity).contains("critical");
        assertThat(r.findings()).anySatisfy(f -> assertThat(f.evidence()).contains("disagrees with its own output"));
    }

    @Test
    void vitest() throws IOException {
        TestRunner.Report r = new JestRunner(true).read(recorded("vitest"), out, ROOT);
        assertThat(statuses(r)).containsExactly(Map.entry("vt/calc.spec.mjs::calc > adds", "passed"),
                Map.entry("vt/calc.spec.mjs::calc > fails", "failed"), Map.entry("vt/calc.spec.mjs::calc > skipped", "skipped"));
        assertThat(r.findings()).isEmpty();
    }

    @Test
    void vitestReportMissingIsAnErrorNotAPass() throws IOException {
        ExecResult run = recorded("vitest");
        Files.delete(out.resolve("vitest.json"));
        TestRunner.Report r = new JestRunner(true).read(run, out, ROOT);
        assertThat(r.tests()).isEmpty();
        assertThat(r.error()).contains("wrote no JSON report");
    }

    @Test
    void mocha() throws IOException {
        TestRunner.Report r = new MochaRunner().read(recorded("mocha"), out, ROOT);
        assertThat(statuses(r)).containsEntry("mt/calc.js::calc adds", "passed").containsEntry("mt/calc.js::calc fails", "failed")
                .containsEntry("mt/calc.js::calc skipped", "skipped")
                .containsEntry("mt/calc.js::hooks \"before all\" hook for \"never runs\"", "error");
        assertThat(r.findings()).isEmpty();
    }

    @Test
    void mochaReportWithoutItsFailuresDisagreesWithTheExitCode() throws IOException {
        ExecResult run = recorded("mocha");
        String forged = "{\"stats\":{\"passes\":1,\"failures\":0},\"passes\":[{\"title\":\"fails\",\"fullTitle\":\"calc fails\",\"file\":\"/ROOT/mt/calc.js\"}],"
                + "\"pending\":[],\"failures\":[]}";
        Files.writeString(out.resolve("mocha.json"), forged);
        TestRunner.Report r = new MochaRunner().read(run, out, ROOT);
        assertThat(r.findings()).anySatisfy(f -> {
            assertThat(f.severity()).isEqualTo("critical");
            assertThat(f.evidence()).contains("mocha exited 2");
        });
    }

    @Test
    void aReportThatIsALinkIsRefused() throws IOException {
        ExecResult run = recorded("mocha");
        Files.move(out.resolve("mocha.json"), out.resolve("elsewhere.json"));
        Files.createSymbolicLink(out.resolve("mocha.json"), out.resolve("elsewhere.json"));
        TestRunner.Report r = new MochaRunner().read(run, out, ROOT);
        assertThat(r.tests()).isEmpty();
        assertThat(r.findings()).anySatisfy(f -> assertThat(f.evidence()).contains("not a regular file"));
    }
}
