package dev.crucible.probe;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.probe.model.Device;
import dev.crucible.probe.serve.BatchingOptions;
import dev.crucible.probe.serve.ProbeScorer;
import dev.crucible.probe.serve.ScoreItem;
import dev.crucible.probe.serve.ScoreResult;
import dev.crucible.probe.train.CorpusReader;
import dev.crucible.probe.train.CorpusRow;
import dev.crucible.probe.train.EvaluationOptions;
import dev.crucible.probe.train.LabelBand;
import dev.crucible.probe.train.ProbeMetrics;
import dev.crucible.probe.train.ProbeTrainer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --ensemble}: training writes a servable worst-case ensemble chosen by the min's held-out AUC. */
class EnsembleTest {

    @Test
    void ensembleIsWrittenServedAsTheMinAndKeepsTheHeldOutAuc(@TempDir Path out) throws Exception {
        ProbeTrainer.Outcome o = ProbeTrainer.train(TrainingTest.smallGrid(TrainingTest.CORPUS, out)
                .withEvaluation(new EvaluationOptions(0, 0, null, 0.02, true, 3)));
        assertThat(o.ensemble()).hasSizeBetween(2, 3).startsWith(o.selected());
        JsonNode report = new ObjectMapper().readTree(out.resolve("report.json").toFile());
        System.out.println("ensemble: " + report.get("ensemble") + " selected auc " + o.selected().auc());
        assertThat(report.get("ensemble").get("auc").asDouble()).isGreaterThan(o.selected().auc() - 0.011);
        JsonNode probe = new ObjectMapper().readTree(out.resolve("probe.json").toFile());
        assertThat(probe.get("heads")).hasSize(o.ensemble().size());
        assertThat(probe.get("heads").get(1).has("layer")).isTrue();

        List<CorpusRow> rows = CorpusReader.read(TrainingTest.CORPUS, true);
        try (ProbeScorer scorer = ProbeScorer.open(out, Device.CPU, BatchingOptions.DEFAULT, new SimpleMeterRegistry())) {
            List<ScoreResult> results = scorer.score(rows.stream()
                    .map(r -> new ScoreItem(r.id(), r.turns(), r.valid())).toList()).get();
            for (ScoreResult r : results) {
                assertThat(r.headLogits()).hasSize(o.ensemble().size());
                assertThat(r.logit()).isEqualTo(java.util.Arrays.stream(r.headLogits()).min().orElseThrow());
            }
            int[] y = rows.stream().mapToInt(r -> LabelBand.DEFAULT.positive(r.k(), r.n()) ? 1 : 0).toArray();
            assertThat(ProbeMetrics.auc(y, results.stream().mapToDouble(ScoreResult::logit).toArray()))
                    .isGreaterThan(0.8);
        }
    }
}
