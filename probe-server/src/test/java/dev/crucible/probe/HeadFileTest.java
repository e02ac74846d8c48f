package dev.crucible.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.crucible.probe.head.HeadArchitecture;
import dev.crucible.probe.head.HeadFile;
import dev.crucible.probe.head.ProbeHead;
import dev.crucible.probe.train.Balance;
import dev.crucible.probe.train.HeadTrainer;
import dev.crucible.probe.train.TrainingOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HeadFileTest {

    @Test
    void handWrittenMlpHeadComputesReluNetwork(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("h.json");
        Files.writeString(f, """
                {"name": "hand", "architecture": "mlp",
                 "featureMean": [1, 0], "featureScale": [2, 1],
                 "layers": [{"weight": [[1, 0], [0, -1]], "bias": [0, 0]},
                            {"weight": [[1, 1]], "bias": [0.5]}]}""");
        ProbeHead h = HeadFile.read(f);
        // x = (5, 3) → standardised (2, 3) → hidden relu(2, -3) = (2, 0) → 2 + 0 + 0.5
        assertThat(h.logit(new float[] {5, 3})).isEqualTo(2.5);
        assertThat(h.architecture()).isEqualTo(HeadArchitecture.MLP);
    }

    @Test
    void trainedHeadsOfEveryArchitectureSurviveARoundTrip(@TempDir Path dir) throws Exception {
        Random rnd = new Random(3);
        float[][] x = new float[200][6];
        int[] y = new int[200];
        for (int i = 0; i < 200; i++) {
            for (int d = 0; d < 6; d++) {
                x[i][d] = (float) rnd.nextGaussian();
            }
            y[i] = x[i][0] + 0.5 * x[i][1] > 0 ? 1 : 0;
        }
        int[] rows = java.util.stream.IntStream.range(0, 200).toArray();
        for (HeadArchitecture a : HeadArchitecture.values()) {
            ProbeHead h = new HeadTrainer(TrainingOptions.DEFAULT).train(a.id(), x, y, rows, a, Balance.DOWNSAMPLE, 1);
            Path f = dir.resolve(a.id() + ".json");
            HeadFile.write(h, f);
            ProbeHead back = HeadFile.read(f);
            assertThat(back.layers()).hasSize(a.hidden().length + 1);
            int correct = 0;
            for (int i = 0; i < 200; i++) {
                assertThat(back.logit(x[i])).isEqualTo(h.logit(x[i]));
                correct += (h.logit(x[i]) > 0) == (y[i] == 1) ? 1 : 0;
            }
            assertThat(correct).as(a.id() + " fits a linear rule").isGreaterThan(180);
        }
    }

    @Test
    void malformedHeadsAreRefusedNamingTheProblem(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("bad.json");
        Files.writeString(f, "{\"architecture\": \"linear\", \"layers\": [{\"weight\": [[1, 2]], \"bias\": [0, 1]}]}");
        assertThatThrownBy(() -> HeadFile.read(f)).hasMessageContaining("bias length");
        Files.writeString(f, "{\"architecture\": \"cnn\", \"layers\": []}");
        assertThatThrownBy(() -> HeadFile.read(f)).hasMessageContaining("cnn");
        Files.writeString(f, "{\"architecture\": \"linear\", \"layers\": [{\"weight\": [[1, 2]], \"bias\": [0]}],"
                + " \"featureScale\": [1, 0]}");
        assertThatThrownBy(() -> HeadFile.read(f)).hasMessageContaining("featureScale[1]");
        Files.writeString(f, "{\"architecture\": \"linear\"}");
        assertThatThrownBy(() -> HeadFile.read(f)).hasMessageContaining("layers");
        ProbeHead ok = TestProbes.linear("ok", 4, 1);
        assertThatThrownBy(() -> ok.logit(new float[3])).hasMessageContaining("expects 4 features");
    }
}
