package dev.crucible.verifier.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.verifier.Environment;
import dev.crucible.verifier.support.Fixtures;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The benchmark runs and prints its lines (a measurement, not a timing assertion: the machine is shared). */
class GradingBenchTest {
    @Test
    void printsPhasesPerSuiteAndTheBenchLineLast() {
        Environment env = Environment.load(Fixtures.example().resolve("environment.yaml"));
        GradingBench.Result r = GradingBench.run(env, env.workspacePath().orElseThrow(), 2, Duration.ofSeconds(1), 20);
        r.lines().forEach(l -> System.out.println("[bench] " + l));
        List<String> lines = r.lines();
        assertThat(lines).hasSize(5);
        for (int i : new int[] {0, 2}) {
            assertThat(lines.get(i)).matches("phases_ms suite=(example|synthetic) runs=2( [a-z_]+=(-?\\d+\\.\\d|-))+");
            assertThat(lines.get(i)).contains(" kill=", " scan=", " tree=", " setup=", " box_open=", " box_start=", " bare_start=", " pytest=", " reporter=",
                    " exit=", " box_close=", " parse=", " other=", " cleanup=");
        }
        assertThat(lines.get(1)).matches("suite=example tests=4 bare_s=\\d+\\.\\d{3} graded_s=\\d+\\.\\d{3} overhead_s=-?\\d+\\.\\d{3} overhead_ratio=\\d+\\.\\d{3} cold_graded_s=(\\d+\\.\\d{3}|NaN) cold_overhead_ratio=(\\d+\\.\\d{3}|NaN) integrity=(isolated|in-process|none) inprocess_graded_s=\\d+\\.\\d{3} isolated_vs_inprocess=\\d+\\.\\d{3} oracle_calls=\\d+ runs=2 load=\\d+\\.\\d{2}-\\d+\\.\\d{2}");
        assertThat(lines.get(3)).matches("suite=synthetic tests=20 bare_s=\\d+\\.\\d{3} graded_s=\\d+\\.\\d{3} overhead_s=-?\\d+\\.\\d{3} overhead_ratio=\\d+\\.\\d{3} cold_graded_s=(\\d+\\.\\d{3}|NaN) cold_overhead_ratio=(\\d+\\.\\d{3}|NaN) integrity=(isolated|in-process|none) inprocess_graded_s=\\d+\\.\\d{3} isolated_vs_inprocess=\\d+\\.\\d{3} oracle_calls=\\d+ runs=2 load=\\d+\\.\\d{2}-\\d+\\.\\d{2}");
        assertThat(lines.get(4)).isEqualTo(r.line())
                .matches("bare_s=\\d+\\.\\d{3} graded_s=\\d+\\.\\d{3} overhead_ratio=\\d+\\.\\d{3} cold_overhead_ratio=(\\d+\\.\\d{3}|NaN) monitor_cpu_pct=\\d+\\.\\d{3} grading=(box|unconfined) integrity=(isolated|in-process|none) isolated_vs_inprocess=\\d+\\.\\d{3} synthetic_isolated_vs_inprocess=\\d+\\.\\d{3}");
        if (r.gradingSandbox().equals("box")) assertThat(r.example().integrity()).as("a boxed grading is isolated by default").isEqualTo("isolated");
        if ("isolated".equals(r.synthetic().integrity())) {
            // its tests call the code under test thousands of times (test_collatz): each call is one round trip, counted
            assertThat(r.synthetic().oracleCalls()).as("round trips of an isolated grading").isGreaterThan(2_000);
            assertThat(r.synthetic().phases().ms()).containsKeys("oracle_wait", "oracle_fallback");
        }
        assertThat(r.example().phases().ms().get("pytest")).as("the reporter's clock reached the bench").isPositive();
        assertThat(r.bareSeconds()).isPositive();
        assertThat(r.gradedSeconds()).isPositive();
        if (r.gradingSandbox().equals("box")) assertThat(r.example().coldSeconds()).as("grading with nothing started early").isPositive();
    }

    @Test
    void theSyntheticSuitePassesBareAsWritten(@TempDir Path dir) throws Exception {
        Path manifest = SyntheticSuite.write(dir, 20);
        assertThat(SyntheticSuite.count(20)).isEqualTo(20);
        assertThat(pytest(manifest.resolveSibling("workspace"))).contains("20 passed");
    }

    @Test
    void theCallHeavySuitePassesBareAsWritten(@TempDir Path dir) throws Exception {
        Path manifest = CallHeavySuite.write(dir, 15);
        assertThat(CallHeavySuite.count(15)).isEqualTo(20);
        assertThat(pytest(manifest.resolveSibling("workspace"))).contains("20 passed");
    }

    @Test
    void theCallHeavySuiteIsMeasuredAndItsRatioPrinted() {
        Environment env = Environment.load(Fixtures.example().resolve("environment.yaml"));
        GradingBench.Result r = GradingBench.run(env, env.workspacePath().orElseThrow(), 1, Duration.ofSeconds(1), 0, 10);
        r.lines().forEach(l -> System.out.println("[bench] " + l));
        assertThat(r.synthetic()).isNull();
        assertThat(r.lines()).hasSize(5);
        assertThat(r.lines().get(3)).startsWith("suite=calls tests=10 ");
        assertThat(r.line()).matches(".* isolated_vs_inprocess=\\d+\\.\\d{3} calls_isolated_vs_inprocess=\\d+\\.\\d{3}");
        if ("isolated".equals(r.calls().integrity())) {
            // each of its tests calls the tree about CALLS times, some shapes twice per call: every call a round trip
            assertThat(r.calls().oracleCalls()).as("round trips of an isolated grading").isGreaterThan(10L * CallHeavySuite.CALLS);
        }
    }

    @Test
    void theChildSuitePassesBareAsWritten(@TempDir Path dir) throws Exception {
        Path manifest = ChildSuite.write(dir, 8);
        assertThat(ChildSuite.count(8)).isEqualTo(10);
        assertThat(pytest(manifest.resolveSibling("workspace"))).contains("10 passed");
    }

    /** Each test starts a process: isolated, each runs in a box of its own, and the suite still grades every test. */
    @Test
    void theChildSuiteIsMeasuredAndItsRatioPrinted() {
        Environment env = Environment.load(Fixtures.example().resolve("environment.yaml"));
        GradingBench.Result r = GradingBench.run(env, env.workspacePath().orElseThrow(), 1, Duration.ofSeconds(1), 0, 0, 5);
        r.lines().forEach(l -> System.out.println("[bench] " + l));
        assertThat(r.calls()).isNull();
        assertThat(r.lines()).hasSize(5);
        assertThat(r.lines().get(3)).startsWith("suite=children tests=5 ");
        assertThat(r.line()).matches(".* isolated_vs_inprocess=\\d+\\.\\d{3} children_isolated_vs_inprocess=\\d+\\.\\d{3}");
        if (r.gradingSandbox().equals("box")) assertThat(r.children().integrity()).as("CLI tests are graded isolated").isEqualTo("isolated");
    }

    private static String pytest(Path workspace) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("python3", "-m", "pytest", "-q", "-p", "no:cacheprovider")
                .directory(workspace.toFile()).redirectErrorStream(true);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as(out).isZero();
        return out;
    }
}
