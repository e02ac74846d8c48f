package dev.crucible.probe;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.probe.train.EvaluationOptions;
import dev.crucible.probe.train.HeldOutFigures;
import dev.crucible.probe.train.PermutationNull;
import dev.crucible.probe.train.ProbeTrainer;
import dev.crucible.probe.train.TrainChecks;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The held-out figure from nested grouped CV against its permutation-null band: a corpus whose
 * labels ignore the text lands inside the band; the bundled learnable corpus lands above it, and
 * the report carries the held-out figure beside the (optimistic) selection figure.
 */
class HonestFigureTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final EvaluationOptions CHECKS = new EvaluationOptions(4, 20, null, 0.02, true);

    @Test
    void pureNoiseHeldOutFigureIsInsideItsPermutationBand(@TempDir Path dir) throws Exception {
        Path corpus = SyntheticCorpus.noise(dir.resolve("noise.jsonl"), 240, 5);
        ProbeTrainer.Outcome o = ProbeTrainer.train(TrainingTest.smallGrid(corpus, dir.resolve("out"))
                .withEvaluation(CHECKS));
        TrainChecks c = o.checks();
        HeldOutFigures held = c.nested().figures();
        PermutationNull.Band band = c.band();
        System.out.printf("noise: selection auc=%.3f held-out %s band [%.3f, %.3f]%n", o.selected().auc(),
                held.summary(), band.aucLow(), band.aucHigh());
        assertThat(held.auc()).isBetween(band.aucLow(), band.aucHigh());
        assertThat(c.warnings()).anySatisfy(w -> assertThat(w.kind()).isEqualTo("chance"));
    }

    @Test
    void learnableCorpusHeldOutFigureIsAboveItsBandAndReportedBesideSelection(@TempDir Path out) throws Exception {
        ProbeTrainer.Outcome o = ProbeTrainer.train(TrainingTest.smallGrid(TrainingTest.CORPUS, out)
                .withEvaluation(CHECKS));
        TrainChecks c = o.checks();
        HeldOutFigures held = c.nested().figures();
        System.out.printf("learnable: selection auc=%.3f bal_acc=%.3f, held-out %s band [%.3f, %.3f] baselines %s "
                        + "rho_length=%.3f warnings %s%n", o.selected().auc(), o.selected().balancedAccuracy(),
                held.summary(), c.band().aucLow(), c.band().aucHigh(), c.baselines().auc(), c.spearmanLength(),
                c.warnings());
        assertThat(held.auc()).isGreaterThan(c.band().aucHigh() + 0.1);
        assertThat(held.balancedAccuracy()).isGreaterThan(c.band().balancedAccuracyHigh());
        assertThat(c.warnings()).noneSatisfy(w -> assertThat(w.kind()).isIn("chance", "shortcut"));

        JsonNode report = JSON.readTree(out.resolve("report.json").toFile());
        JsonNode nested = report.get("heldOut").get("nested");
        assertThat(nested.get("auc").asDouble()).isEqualTo(held.auc(), org.assertj.core.data.Offset.offset(1e-4));
        assertThat(nested.get("selectedPerFold")).hasSize(4);
        assertThat(report.get("heldOut").get("permutationNull").get("auc95").asDouble()).isLessThan(held.auc());
        assertThat(report.get("selected").get("auc").asDouble()).isGreaterThan(0);
        assertThat(report.get("baselines").has("bagOfWords")).isTrue();
        assertThat(report.get("perGroup")).hasSize(12);
    }
}
