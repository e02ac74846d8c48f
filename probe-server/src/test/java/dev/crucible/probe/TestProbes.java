package dev.crucible.probe;

import dev.crucible.probe.head.DenseLayer;
import dev.crucible.probe.head.HeadArchitecture;
import dev.crucible.probe.head.HeadFile;
import dev.crucible.probe.head.ProbeHead;
import dev.crucible.probe.model.ProbeSpec;
import dev.crucible.probe.pooling.Pooling;
import dev.crucible.probe.reward.RewardComposition;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Writes small probe directories over the tiny reference model for tests. */
final class TestProbes {
    private TestProbes() {
    }

    /** A linear head with seeded random weights over {@code dim} features. */
    static ProbeHead linear(String name, int dim, long seed) {
        Random rnd = new Random(seed);
        float[][] w = new float[1][dim];
        for (int i = 0; i < dim; i++) {
            w[0][i] = (float) rnd.nextGaussian() * 0.3f;
        }
        float[] scale = new float[dim];
        java.util.Arrays.fill(scale, 1f);
        return new ProbeHead(name, HeadArchitecture.LINEAR, new float[dim], scale,
                List.of(new DenseLayer(w, new float[] {0.1f})));
    }

    /** probe.json + {@code heads} linear heads (layer 2, mean_full / mean_full) in {@code dir}. */
    static Path write(Path dir, int heads, RewardComposition reward) throws IOException {
        List<String> files = new ArrayList<>();
        for (int h = 0; h < heads; h++) {
            String f = "head" + h + ".json";
            HeadFile.write(linear("head" + h, 64, 11 + h), dir.resolve(f));
            files.add(f);
        }
        ProbeSpec.write(dir, "test-probe", TinyModel.dir(), 2, Pooling.parse("mean_full"),
                Pooling.parse("mean_full"), files, reward);
        return dir;
    }

    /**
     * An ensemble over two reading points, written with the ProbeModel resource's field names:
     * head0 at the model's layer 2 / mean_full, head1 at layer 3 / first_last_concat (128 features);
     * the reference is named by its files (no reference.json), so its shape is read from the ONNX.
     */
    static Path writeMixed(Path dir) throws IOException {
        HeadFile.write(linear("head0", 64, 11), dir.resolve("head0.json"));
        HeadFile.write(linear("head1", 128, 12), dir.resolve("head1.json"));
        String onnx = TinyModel.dir().resolve("model.onnx").toAbsolutePath().toString();
        String tok = dir.toAbsolutePath().relativize(TinyModel.dir().resolve("tokenizer.json").toAbsolutePath()).toString();
        java.nio.file.Files.writeString(dir.resolve(ProbeSpec.FILE), """
                {"name": "mixed", "reference": {"path": "%s", "tokenizerPath": "%s", "maxTokens": 512}, "layer": 2, "pooling": "mean_full", "turnAggregation": "mean",
                 "heads": ["head0.json", {"weightsPath": "head1.json", "layer": 3, "pooling": "first_last_concat"}],
                 "reward": {"composition": "soft-gate", "clipMin": 0.2, "clipMax": 0.8}}""".formatted(onnx, tok));
        return dir;
    }
}
