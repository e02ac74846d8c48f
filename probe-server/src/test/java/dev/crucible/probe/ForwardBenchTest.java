package dev.crucible.probe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.probe.bench.BenchResult;
import dev.crucible.probe.bench.ForwardBench;
import dev.crucible.probe.bench.TorchBench;
import dev.crucible.probe.model.Device;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The bench's two sides in one run: the real PyTorch worker (fixtures/bench_torch.py with the
 * probe Python, the tiny fixture rebuilt from its seed) alternating windows with ONNX Runtime.
 * Skips without $CRUCIBLE_PROBE_PYTHON; without torch the CLI tests cover the NA line.
 */
class ForwardBenchTest {

    private static Path probePython() {
        String env = System.getenv("CRUCIBLE_PROBE_PYTHON");
        Path p = env == null || env.isBlank() ? null : Path.of(env);
        Assumptions.assumeTrue(p != null && Files.isExecutable(p), "no $CRUCIBLE_PROBE_PYTHON");
        return p;
    }

    @Test
    void bothSidesAreTimedInEveryRoundOnTheSameIds() throws Exception {
        Path python = probePython();
        ForwardBench.Options o = new ForwardBench.Options(2, 16, 0.2, 3, 1, Device.CPU);
        BenchResult r = ForwardBench.run(TinyModel.dir(), o, TorchBench.discover(python));
        assertThat(r.torchNote()).contains("tiny-qwen2-random").contains("(1 threads)");
        assertThat(r.rounds()).isEqualTo(3);
        assertThat(r.torchTokensPerSecond()).as(r.torchNote()).isPositive();
        assertThat(r.ratio()).isPositive();
        assertThat(r.cpuRatio()).isPositive();
        assertThat(r.line()).matches("java_tokens_s=\\d+ torch_tokens_s=\\d+ ratio=[0-9.]+ head_share=[0-9.]+"
                + " cpu_ratio=[0-9.]+ load=[0-9.]+-[0-9.]+");
    }

    @Test
    void aWorkerThatReadOtherIdsIsRefused(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path python = probePython();
        Path ids = dir.resolve("ids.txt");
        Files.writeString(ids, "1 2 3 4\n5 6 7 8\n");
        ForwardBench.Options o = new ForwardBench.Options(2, 4, 0.1, 1, 1, Device.CPU);
        try (TorchBench.Started t = TorchBench.discover(python).start(TinyModel.dir(), ids, o)) {
            assertThat(t.worker()).as(t.note()).isNotNull();
            assertThat(t.worker().shape()).isEqualTo("2x4");
            assertThat(t.worker().idsSum()).isEqualTo(36);
            assertThat(t.worker().time(0.05).tokensPerSecond()).isPositive();
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> ForwardBench.sameIds(t.worker(),
                            java.util.List.of(new long[] {1, 2, 3, 4}, new long[] {5, 6, 7, 9})))
                    .hasMessageContaining("sum 36").hasMessageContaining("sum 37");
        }
    }
}
