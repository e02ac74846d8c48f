package dev.crucible.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.probe.train.CorpusReader;
import dev.crucible.probe.train.EvaluationOptions;
import dev.crucible.probe.train.ProbeTrainer;
import dev.crucible.probe.train.SolverFacets;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A corpus labelled by two solvers: one whose band is learnable from the text, one at random. The
 * head × solver facets must sweep both and show the difference; {@code --solver} picks the target.
 */
class SolverFacetsTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final EvaluationOptions QUICK = new EvaluationOptions(0, 0, null, 0.02, true, 1, true);

    @Test
    void eachSolverIsSweptAndTheLearnableOneStandsOut(@TempDir Path dir) throws Exception {
        Path corpus = SyntheticCorpus.twoSolvers(dir.resolve("two.jsonl"), 360, 5);
        Path out = dir.resolve("out");
        ProbeTrainer.Outcome o = ProbeTrainer.train(TrainingTest.smallGrid(corpus, out).withEvaluation(QUICK));
        List<SolverFacets.Facet> f = o.facets();
        assertThat(f).extracting(SolverFacets.Facet::solver).containsExactly("content", "noise");
        assertThat(f.get(0).target()).as("top-level k/n are content's counts").isTrue();
        assertThat(f.get(0).results()).isSameAs(o.results());
        assertThat(f.get(1).results()).hasSize(o.results().size());
        double learnable = f.get(0).best().balancedAccuracy();
        double noise = f.get(1).best().balancedAccuracy();
        System.out.printf("facets: content best bal_acc=%.3f, noise best bal_acc=%.3f%n", learnable, noise);
        assertThat(learnable).isGreaterThan(0.75);
        assertThat(noise).isLessThan(0.62).isLessThan(learnable - 0.08);

        JsonNode report = JSON.readTree(out.resolve("report.json").toFile());
        assertThat(report.get("solverFacets")).hasSize(2);
        assertThat(report.get("solverFacets").get(1).get("solver").asText()).isEqualTo("noise");
        assertThat(report.get("solverFacets").get(1).get("best").get("balancedAccuracy").asDouble())
                .isCloseTo(noise, org.assertj.core.data.Offset.offset(1e-4));
        BufferedImage facets = ImageIO.read(out.resolve("sweep_solvers.png").toFile());
        BufferedImage single = ImageIO.read(out.resolve("sweep.png").toFile());
        assertThat(facets.getHeight()).as("one row of panels per solver").isGreaterThan(single.getHeight() + 60);

        // the other solver as the target: its labels train, the facets put it first
        Path out2 = dir.resolve("out2");
        ProbeTrainer.Outcome n = ProbeTrainer.train(TrainingTest.smallGrid(corpus, out2).withEvaluation(QUICK)
                .withSolver("noise"));
        assertThat(n.facets()).extracting(SolverFacets.Facet::solver).containsExactly("noise", "content");
        assertThat(n.selected().balancedAccuracy()).isLessThan(0.62);
        assertThat(n.facets().get(1).best().balancedAccuracy()).isCloseTo(learnable,
                org.assertj.core.data.Offset.offset(1e-9));

        // switched off: no facet sweeps, no figure
        Path out3 = dir.resolve("out3");
        ProbeTrainer.Outcome off = ProbeTrainer.train(TrainingTest.smallGrid(corpus, out3)
                .withEvaluation(new EvaluationOptions(0, 0, null, 0.02, true, 1, false)));
        assertThat(off.facets()).isEmpty();
        assertThat(out3.resolve("sweep_solvers.png")).doesNotExist();
        assertThat(JSON.readTree(out3.resolve("report.json").toFile()).has("solverFacets")).isFalse();
    }

    @Test
    void solverCountsAreReadAndBadOnesNameTheirField(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("c.jsonl");
        Files.writeString(f, """
                {"id": "a", "text": "x", "solvers": {"s3b": {"k": 1, "n": 4}, "s7b": {"k": 4, "n": 4}}}
                {"id": "b", "text": "y", "solvers": {"s3b": {"k": 0, "n": 4}}}
                """);
        assertThat(CorpusReader.read(f, true, "group", "s3b")).extracting(r -> r.k() + "/" + r.n())
                .containsExactly("1/4", "0/4");
        assertThat(CorpusReader.read(f, false).get(0).solvers()).containsOnlyKeys("s3b", "s7b");
        assertThatThrownBy(() -> CorpusReader.read(f, true, "group", "s7b"))
                .hasMessageContaining(":2:").hasMessageContaining("'s7b'");
        assertThatThrownBy(() -> CorpusReader.read(f, true)).hasMessageContaining(":1:")
                .hasMessageContaining("--solver").hasMessageContaining("s3b");
        Files.writeString(f, "{\"text\": \"x\", \"k\": 1, \"n\": 4, \"solvers\": {\"big\": {\"k\": 5, \"n\": 4}}}\n");
        assertThatThrownBy(() -> CorpusReader.read(f, true)).hasMessageContaining("'solvers.big.k'");
        Files.writeString(f, "{\"text\": \"x\", \"k\": 1, \"n\": 4, \"solvers\": {\"big\": 3}}\n");
        assertThatThrownBy(() -> CorpusReader.read(f, true)).hasMessageContaining("'solvers.big'");
    }
}
