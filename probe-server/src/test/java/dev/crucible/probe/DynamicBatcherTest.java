package dev.crucible.probe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.probe.model.Device;
import dev.crucible.probe.model.ReferenceModel;
import dev.crucible.probe.model.ReferenceSpec;
import dev.crucible.probe.serve.BatchingOptions;
import dev.crucible.probe.serve.DynamicBatcher;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The padded-token budget bounds every batch, and batching does not change the hidden states. */
class DynamicBatcherTest {
    static ReferenceModel model;

    @BeforeAll
    static void load() throws Exception {
        model = new ReferenceModel(ReferenceSpec.read(TinyModel.dir()), Device.CPU, 1);
    }

    @AfterAll
    static void close() throws Exception {
        model.close();
    }

    static List<long[]> sequences(int count, int len) {
        List<long[]> out = new ArrayList<>();
        for (int s = 0; s < count; s++) {
            long[] ids = new long[len + s % 3];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = (s * 31L + i * 7L) % 5000;
            }
            out.add(ids);
        }
        return out;
    }

    @Test
    void batchesStayUnderTheTokenBudget() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (DynamicBatcher b = new DynamicBatcher(model, new int[] {1}, new BatchingOptions(100, 20), registry)) {
            List<Map<Integer, float[][]>> out = b.encode(sequences(10, 30)).get();
            assertThat(out).hasSize(10);
            DistributionSummary tokens = registry.find("probe_batch_padded_tokens").summary();
            assertThat(tokens.max()).isLessThanOrEqualTo(100);
            assertThat(tokens.count()).isGreaterThanOrEqualTo(4);   // 10 × ~31 tokens cannot fit in fewer
        }
    }

    @Test
    void oneCallWithinBudgetIsOneForwardPassAndMatchesUnbatched() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        List<long[]> seqs = sequences(6, 12);
        try (DynamicBatcher b = new DynamicBatcher(model, new int[] {0, 3}, new BatchingOptions(4096, 50), registry)) {
            List<Map<Integer, float[][]>> out = b.encode(seqs).get();
            assertThat(registry.find("probe_batch_sequences").summary().max()).isEqualTo(6);
            for (int s = 0; s < seqs.size(); s++) {
                float[][] alone = model.forward(List.of(seqs.get(s)), 3).get(3)[0];
                float[][] batched = out.get(s).get(3);
                assertThat(batched.length).isEqualTo(seqs.get(s).length);
                for (int t = 0; t < alone.length; t++) {
                    for (int d = 0; d < alone[t].length; d++) {
                        assertThat(Math.abs(batched[t][d] - alone[t][d])).isLessThan(1e-4f);
                    }
                }
            }
        }
    }

    @Test
    void mixedLengthsArePackedByLengthNotArrivalOrder() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        List<long[]> seqs = new ArrayList<>();
        for (int s = 0; s < 8; s++) {
            seqs.add(sequences(1, s % 2 == 0 ? 200 : 8).get(0));   // long, short, long, short, …
        }
        try (DynamicBatcher b = new DynamicBatcher(model, new int[] {1}, new BatchingOptions(1024, 200), registry)) {
            List<Map<Integer, float[][]>> out = b.encode(seqs).get();
            for (int s = 0; s < seqs.size(); s++) {
                assertThat(out.get(s).get(1).length).as("results stay in request order").isEqualTo(seqs.get(s).length);
            }
            // arrival order would pad (200,8,200,8,200) and (8,200,8) to 200: 1600 tokens; by length 1024
            assertThat(registry.find("probe_batch_padded_tokens").summary().totalAmount()).isEqualTo(1024);
        }
    }

    @Test
    void aSequenceLongerThanTheBudgetStillRunsAlone() throws Exception {
        try (DynamicBatcher b = new DynamicBatcher(model, new int[] {2}, new BatchingOptions(16, 1), new SimpleMeterRegistry())) {
            assertThat(b.encode(sequences(2, 40)).get()).hasSize(2);
        }
    }
}
