package dev.crucible.probe;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.probe.train.EvaluationOptions;
import dev.crucible.probe.train.ProbeTrainer;
import dev.crucible.probe.train.TrainChecks;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A corpus whose band label depends only on text length must raise the shortcut warning in the
 * outcome and in report.json (the bundled content corpus must not: see HonestFigureTest).
 */
class ShortcutChecksTest {
    static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void lengthOnlyCorpusRaisesTheShortcutWarning(@TempDir Path dir) throws Exception {
        Path corpus = SyntheticCorpus.lengthOnly(dir.resolve("length.jsonl"), 360, 8);
        Path out = dir.resolve("out");
        ProbeTrainer.Outcome o = ProbeTrainer.train(TrainingTest.smallGrid(corpus, out)
                .withEvaluation(new EvaluationOptions(4, 0, null, 0.02, true)));
        TrainChecks c = o.checks();
        System.out.printf("length-only: selection auc=%.3f held-out %s baselines %s rho_length=%.3f warnings %s%n",
                o.selected().auc(), c.nested().figures().summary(), c.baselines().auc(), c.spearmanLength(),
                c.warnings());
        assertThat(c.baselines().auc().get("length")).isGreaterThan(0.75);
        assertThat(c.warnings()).anySatisfy(w -> {
            assertThat(w.kind()).isEqualTo("shortcut");
            assertThat(w.message()).contains("length");
        });
        JsonNode report = JSON.readTree(out.resolve("report.json").toFile());
        assertThat(report.get("warnings").findValuesAsText("kind")).contains("shortcut");
        assertThat(report.get("baselines").get("length").asDouble()).isGreaterThan(0.75);
        assertThat(report.get("baselines").has("spearmanScoreLength")).isTrue();
        assertThat(out.resolve("checks.png")).exists();
    }
}
