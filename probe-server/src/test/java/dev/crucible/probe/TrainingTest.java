package dev.crucible.probe;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.crucible.probe.head.HeadArchitecture;
import dev.crucible.probe.model.Device;
import dev.crucible.probe.serve.BatchingOptions;
import dev.crucible.probe.serve.ProbeScorer;
import dev.crucible.probe.serve.ScoreItem;
import dev.crucible.probe.serve.ScoreResult;
import dev.crucible.probe.train.Balance;
import dev.crucible.probe.train.CorpusReader;
import dev.crucible.probe.train.CorpusRow;
import dev.crucible.probe.train.EvaluationOptions;
import dev.crucible.probe.reward.RewardComposition;
import dev.crucible.probe.train.LabelBand;
import dev.crucible.probe.train.ProbeMetrics;
import dev.crucible.probe.train.ProbeTrainer;
import dev.crucible.probe.train.TrainConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Training end to end on the real tiny model: the bundled corpus (label = noisy function of the bug
 * kind in the text) must be learned clearly above chance; the same texts with solve counts shuffled
 * across rows (no signal) must not be.
 */
class TrainingTest {
    // the bundled corpus of examples/probe; surefire passes the repository root (parent pom)
    static final Path CORPUS = Path.of(System.getProperty("crucible.repo.root", ".."), "examples", "probe",
            "corpus.jsonl");
    static final ObjectMapper JSON = new ObjectMapper();

    static final Path POLICY = CORPUS.resolveSibling("policy-sample.jsonl");

    static TrainConfig smallGrid(Path corpus, Path out) {
        return TrainConfig.defaults(corpus, TinyModel.dir(), out).withGrid(List.of(0, 2),
                        List.of("mean_full", "mean_last_half"), List.of("mean_full"),
                        List.of(HeadArchitecture.LINEAR, HeadArchitecture.MLP), List.of(Balance.WEIGHTED))
                .withRuntime(2, Device.CPU, true);
    }

    @Test
    void learnableCorpusBeatsChanceClearlyAndWritesAServableProbe(@TempDir Path out) throws Exception {
        ProbeTrainer.Outcome o = ProbeTrainer.train(smallGrid(CORPUS, out).withPolicy(POLICY));
        System.out.println("learnable: " + o.selected());
        assertThat(o.results()).hasSize(8);
        assertThat(o.selected().balancedAccuracy()).as("cross-repo balanced accuracy").isGreaterThan(0.70);
        assertThat(o.selected().auc()).isGreaterThan(0.75);
        assertThat(o.selected().rvp()).isGreaterThan(0.0);

        JsonNode report = JSON.readTree(out.resolve("report.json").toFile());
        assertThat(report.get("sweep")).hasSize(8);
        assertThat(report.get("data").get("groups").asInt()).isEqualTo(12);
        assertThat(report.get("selection").get("rvpSample").asText()).contains("policy-sample.jsonl");
        // probability means P(in band): calibrated out-of-fold probabilities beat the weighted loss's own
        assertThat(o.selected().ece()).isLessThan(o.selected().rawEce()).isLessThan(0.08);
        for (String f : List.of("balancedAccuracy", "auc", "f1", "ece", "spearmanSolveRate", "rvp")) {
            assertThat(report.get("selected").has(f)).as(f).isTrue();
        }
        // the RVP panel: every cell, and the selected (learnable) probe's top quarter is richer in band than the base
        assertThat(report.get("rvpGain").get("cells").asInt()).isEqualTo(8);
        assertThat(report.get("rvpGain").get("selected").get("gain").asDouble()).isGreaterThan(0.15);
        assertThat(o.rvpGain().points()).hasSize(8);
        // the bundled corpus names two solvers; "small" is the top-level k/n, "large" is swept beside it
        assertThat(o.facets()).extracting(f -> f.solver() + (f.target() ? "*" : "")).containsExactly("small*", "large");
        assertThat(report.get("solverFacets").get(1).get("best").get("auc").asDouble()).isGreaterThan(0.6);
        for (String png : List.of("sweep.png", "calibration.png", "rvp_gain.png", "sweep_solvers.png")) {
            BufferedImage img = ImageIO.read(out.resolve(png).toFile());
            assertThat(img.getWidth()).as(png).isGreaterThan(300);
        }

        // the written directory serves, and the served probe ranks the corpus as training said
        List<CorpusRow> rows = CorpusReader.read(CORPUS, true);
        try (ProbeScorer scorer = ProbeScorer.open(out, Device.CPU, BatchingOptions.DEFAULT, new SimpleMeterRegistry())) {
            List<ScoreItem> items = rows.stream().map(r -> new ScoreItem(r.id(), r.turns(), r.valid())).toList();
            List<ScoreResult> results = scorer.score(items).get();
            int[] y = rows.stream().mapToInt(r -> LabelBand.DEFAULT.positive(r.k(), r.n()) ? 1 : 0).toArray();
            double[] logits = results.stream().mapToDouble(ScoreResult::logit).toArray();
            assertThat(ProbeMetrics.auc(y, logits)).isGreaterThan(0.8);
            double meanP = results.stream().mapToDouble(ScoreResult::probability).average().orElseThrow();
            double baseRate = java.util.Arrays.stream(y).average().orElseThrow();
            assertThat(meanP).as("served mean probability vs base rate").isCloseTo(baseRate,
                    org.assertj.core.data.Offset.offset(0.04));

            // RVP in the report is that of the served head and floor on the policy generations
            List<CorpusRow> policy = CorpusReader.read(POLICY, false);
            List<ScoreResult> served = scorer.score(policy.stream()
                    .map(r -> new ScoreItem(r.id(), r.turns(), r.valid())).toList()).get();
            double servedRvp = ProbeMetrics.variance(served.stream().mapToDouble(ScoreResult::reward).toArray());
            assertThat(report.get("metrics").get("rewardVariance").asDouble()).isCloseTo(servedRvp,
                    org.assertj.core.data.Offset.offset(1e-3));
            // no floor given: it was chosen below every valid task's reward
            double floor = report.get("rewardCheck").get("invalidFloor").asDouble();
            assertThat(report.get("rewardCheck").get("floorChosen").asBoolean()).isTrue();
            assertThat(served.stream().filter(ScoreResult::valid).mapToDouble(ScoreResult::reward).min()
                    .orElseThrow()).isGreaterThan(floor);
            assertThat(results.stream().filter(ScoreResult::valid).mapToDouble(ScoreResult::reward).min()
                    .orElseThrow()).isGreaterThan(floor);
        }

        ProbeTrainer.Outcome again = ProbeTrainer.train(smallGrid(CORPUS, out).withPolicy(POLICY));
        assertThat(again.cacheHit()).isTrue();
        assertThat(again.selected().balancedAccuracy()).isEqualTo(o.selected().balancedAccuracy());
    }

    @Test
    void pureNoiseCorpusDoesNotBeatChance(@TempDir Path dir) throws Exception {
        Path noise = dir.resolve("noise.jsonl");
        shuffleLabels(CORPUS, noise, 99);
        // a given floor of 0 sits above the reward of valid tasks the probe doubts: warned about, kept
        ProbeTrainer.Outcome o = ProbeTrainer.train(smallGrid(noise, dir.resolve("out"))
                .withReward(RewardComposition.of("hard_gate", 0.0, null, null))
                .withEvaluation(new EvaluationOptions(0, 0, null, 0.02, false)));
        System.out.println("noise: " + o.selected());
        assertThat(o.checks().floor().reward().reward(0, false)).isEqualTo(0.0);
        assertThat(o.checks().floor().shareAtOrBelowFloor()).isGreaterThan(0.1);
        assertThat(o.checks().warnings()).anySatisfy(w -> assertThat(w.message()).contains("invalid-task floor 0.000"));
        assertThat(o.selected().balancedAccuracy()).as("best of 8 cells on noise").isLessThan(0.60);
        assertThat(o.results()).allSatisfy(r -> assertThat(r.auc()).isBetween(0.38, 0.62));
    }

    /** Same texts and groups, solve counts permuted across rows: no information left in the text. */
    static void shuffleLabels(Path in, Path out, long seed) throws Exception {
        List<String> lines = Files.readAllLines(in);
        List<int[]> kn = new ArrayList<>();
        List<ObjectNode> rows = new ArrayList<>();
        for (String l : lines) {
            ObjectNode n = (ObjectNode) JSON.readTree(l);
            rows.add(n);
            kn.add(new int[] {n.get("k").asInt(), n.get("n").asInt()});
        }
        Collections.shuffle(kn, new Random(seed));
        List<String> outLines = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            rows.get(i).put("k", kn.get(i)[0]).put("n", kn.get(i)[1]);
            outLines.add(JSON.writeValueAsString(rows.get(i)));
        }
        Files.write(out, outLines);
    }
}
