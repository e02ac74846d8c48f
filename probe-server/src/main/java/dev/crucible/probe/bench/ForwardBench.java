package dev.crucible.probe.bench;

import dev.crucible.probe.head.DenseLayer;
import dev.crucible.probe.head.HeadArchitecture;
import dev.crucible.probe.head.ProbeHead;
import dev.crucible.probe.model.Device;
import dev.crucible.probe.model.ReferenceModel;
import dev.crucible.probe.model.ReferenceSpec;
import dev.crucible.probe.pooling.Pooling;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Measures the reference forward pass in Java (tokens/s over a fixed random batch) and the probe
 * head's cost (pooling + a deep MLP head per sequence) as a share of it, then asks PyTorch for the
 * same model's figure in the same run.
 */
public final class ForwardBench {
    /** Batch shape, timing window and threads; the same values go to the PyTorch side. */
    public record Options(int batch, int seqLen, double seconds, int threads, Device device) {
        public static final Options DEFAULT = new Options(16, 128, 3.0, 1, Device.AUTO);
    }

    private ForwardBench() {
    }

    public static BenchResult run(Path referenceDir, Options o, TorchBench torch) throws Exception {
        ReferenceSpec spec = ReferenceSpec.read(referenceDir);
        int layer = spec.numHiddenStates() - 1;
        List<long[]> batch = randomBatch(o.batch(), o.seqLen(), vocabBound(spec), 42);
        double javaTps;
        double headSeconds;
        double forwardSeconds;
        String device;
        try (ReferenceModel model = new ReferenceModel(spec, o.device(), o.threads())) {
            device = model.device();
            float[][][] hidden = null;
            for (int i = 0; i < 3; i++) {
                hidden = model.forward(batch, layer).get(layer);   // warm-up: allocations, kernels
            }
            int runs = 0;
            long t0 = System.nanoTime();
            while (runs < 3 || System.nanoTime() - t0 < o.seconds() * 1e9) {
                hidden = model.forward(batch, layer).get(layer);
                runs++;
            }
            forwardSeconds = (System.nanoTime() - t0) / 1e9 / runs;
            javaTps = (double) o.batch() * o.seqLen() / forwardSeconds;
            headSeconds = headSeconds(hidden, spec.hiddenSize());
        }
        TorchBench.Result t = torch.run(referenceDir, o);
        return new BenchResult(javaTps, t.tokensPerSecond(), headSeconds / forwardSeconds, device, t.note());
    }

    /** Mean time of pooling + a deep MLP head over the whole batch (the costliest head we train). */
    private static double headSeconds(float[][][] hidden, int dim) {
        Pooling pooling = Pooling.parse("mean_std_concat");
        ProbeHead head = randomHead(pooling.outputDim(dim), new Random(7));
        double sink = 0;
        for (int i = 0; i < 200; i++) {
            for (float[][] h : hidden) {
                sink += head.logit(pooling.pool(h));
            }
        }
        int runs = 0;
        long t0 = System.nanoTime();
        while (runs < 200 || System.nanoTime() - t0 < 0.5e9) {
            for (float[][] h : hidden) {
                sink += head.logit(pooling.pool(h));
            }
            runs++;
        }
        double s = (System.nanoTime() - t0) / 1e9 / runs;
        return Double.isNaN(sink) ? s + 1e-12 : s;
    }

    static ProbeHead randomHead(int in, Random rnd) {
        int[] sizes = {in, 64, 32, 1};
        List<DenseLayer> layers = new ArrayList<>();
        for (int l = 0; l + 1 < sizes.length; l++) {
            float[][] w = new float[sizes[l + 1]][sizes[l]];
            for (float[] row : w) {
                for (int i = 0; i < row.length; i++) {
                    row[i] = (float) rnd.nextGaussian() * 0.1f;
                }
            }
            layers.add(new DenseLayer(w, new float[sizes[l + 1]]));
        }
        float[] scale = new float[in];
        java.util.Arrays.fill(scale, 1f);
        return new ProbeHead("bench", HeadArchitecture.DEEP_MLP, new float[in], scale, layers);
    }

    static List<long[]> randomBatch(int batch, int len, int vocab, long seed) {
        Random rnd = new Random(seed);
        List<long[]> out = new ArrayList<>();
        for (int b = 0; b < batch; b++) {
            long[] ids = new long[len];
            for (int i = 0; i < len; i++) {
                ids[i] = rnd.nextInt(vocab);
            }
            out.add(ids);
        }
        return out;
    }

    /** Ids below the tokenizer's plain vocabulary are valid inputs for any model built on it. */
    private static int vocabBound(ReferenceSpec spec) throws java.io.IOException {
        var root = new com.fasterxml.jackson.databind.ObjectMapper().readTree(spec.tokenizer().toFile());
        return Math.max(2, root.path("model").path("vocab").size());
    }
}
