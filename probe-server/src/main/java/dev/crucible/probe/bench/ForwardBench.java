package dev.crucible.probe.bench;

import dev.crucible.probe.head.DenseLayer;
import dev.crucible.probe.head.HeadArchitecture;
import dev.crucible.probe.head.ProbeHead;
import dev.crucible.probe.model.Device;
import dev.crucible.probe.model.ReferenceModel;
import dev.crucible.probe.model.ReferenceSpec;
import dev.crucible.probe.pooling.Pooling;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Measures the reference forward pass in Java (tokens/s over a fixed random batch) against PyTorch
 * on the same ids in the same run, in alternating windows after both sides have warmed up, and
 * the probe head's cost (pooling + a deep MLP head per sequence) as a share of the forward pass.
 */
public final class ForwardBench {
    /**
     * Batch shape, window per side per round, rounds, threads; the same values go to the PyTorch
     * side.
     */
    public record Options(int batch, int seqLen, double seconds, int rounds, int threads, Device device) {
        public static final Options DEFAULT = new Options(16, 128, 3.0, 4, 1, Device.AUTO);
    }

    /** One timing window: tokens/s over wall-clock time and over the process's CPU time. */
    public record Sample(double tokensPerSecond, double cpuTokensPerSecond) {
    }

    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private ForwardBench() {
    }

    public static BenchResult run(Path referenceDir, Options o, TorchBench torch) throws Exception {
        ReferenceSpec spec = ReferenceSpec.read(referenceDir);
        int layer = spec.numHiddenStates() - 1;
        List<long[]> batch = randomBatch(o.batch(), o.seqLen(), vocabBound(spec), 42);
        Path ids = writeIds(batch);
        List<Sample> javaSamples = new ArrayList<>();
        List<Sample> torchSamples = new ArrayList<>();
        double loadMin = Double.MAX_VALUE;
        double loadMax = 0;
        try (ReferenceModel model = new ReferenceModel(spec, o.device(), o.threads());
             TorchBench.Started t = torch.start(referenceDir, ids, o)) {
            if (t.worker() != null) {
                sameIds(t.worker(), batch);
            }
            float[][][] hidden = null;
            for (int i = 0; i < 3; i++) {
                hidden = model.forward(batch, layer).get(layer);   // warm-up: allocations, kernels, JIT
            }
            for (int r = 0; r < Math.max(1, o.rounds()); r++) {
                double load = OS.getSystemLoadAverage();
                loadMin = Math.min(loadMin, load);
                loadMax = Math.max(loadMax, load);
                // alternate which side goes first so a trend in the neighbours' load favours neither
                if (t.worker() != null && r % 2 == 1) {
                    torchSamples.add(t.worker().time(o.seconds()));
                }
                javaSamples.add(timeJava(model, batch, layer, o));
                if (t.worker() != null && r % 2 == 0) {
                    torchSamples.add(t.worker().time(o.seconds()));
                }
            }
            hidden = model.forward(batch, layer).get(layer);
            double forwardSeconds = o.batch() * o.seqLen() / median(javaSamples, Sample::tokensPerSecond);
            double headShare = headSeconds(hidden, spec.hiddenSize()) / forwardSeconds;
            boolean both = !torchSamples.isEmpty();
            List<Double> wallRatios = new ArrayList<>();
            List<Double> cpuRatios = new ArrayList<>();
            for (int i = 0; i < torchSamples.size(); i++) {
                wallRatios.add(javaSamples.get(i).tokensPerSecond() / torchSamples.get(i).tokensPerSecond());
                cpuRatios.add(javaSamples.get(i).cpuTokensPerSecond() / torchSamples.get(i).cpuTokensPerSecond());
            }
            return new BenchResult(median(javaSamples, Sample::tokensPerSecond),
                    both ? median(torchSamples, Sample::tokensPerSecond) : Double.NaN,
                    both ? median(wallRatios, x -> x) : Double.NaN, both ? median(cpuRatios, x -> x) : Double.NaN,
                    headShare, loadMin, loadMax, javaSamples.size(), model.device(), t.note());
        } finally {
            Files.deleteIfExists(ids);
        }
    }

    /** The served forward pass (tensors in, the layer's per-sequence matrices out) for one window. */
    private static Sample timeJava(ReferenceModel model, List<long[]> batch, int layer, Options o) throws Exception {
        int runs = 0;
        long c0 = OS.getProcessCpuTime();   // the whole JVM (JIT, GC), as the torch side counts its process
        long t0 = System.nanoTime();
        while (runs < 2 || System.nanoTime() - t0 < o.seconds() * 1e9) {
            model.forward(batch, layer);
            runs++;
        }
        double wall = (System.nanoTime() - t0) / 1e9;
        double cpu = Math.max((OS.getProcessCpuTime() - c0) / 1e9, 1e-9);
        double tokens = (double) o.batch() * o.seqLen() * runs;
        return new Sample(tokens / wall, tokens / cpu);
    }

    /** Refuses a ratio over different inputs: the worker reports the shape and id sum it read. */
    public static void sameIds(TorchBench.Worker w, List<long[]> batch) {
        long sum = 0;
        for (long[] seq : batch) {
            for (long id : seq) {
                sum += id;
            }
        }
        String shape = batch.size() + "x" + batch.get(0).length;
        if (!shape.equals(w.shape()) || sum != w.idsSum()) {
            throw new IllegalStateException("bench_torch.py read a " + w.shape() + " batch with id sum " + w.idsSum()
                    + ", not the Java side's " + shape + " with sum " + sum);
        }
    }

    private static <T> double median(List<T> xs, java.util.function.ToDoubleFunction<T> f) {
        double[] v = xs.stream().mapToDouble(f).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    /** The batch for the torch side, so both time the very same token ids. */
    private static Path writeIds(List<long[]> batch) throws java.io.IOException {
        StringBuilder sb = new StringBuilder();
        for (long[] seq : batch) {
            for (int i = 0; i < seq.length; i++) {
                sb.append(i == 0 ? "" : " ").append(seq[i]);
            }
            sb.append('\n');
        }
        Path f = Files.createTempFile("probe-bench-ids", ".txt");
        Files.writeString(f, sb);
        return f;
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
