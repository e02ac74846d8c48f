package dev.crucible.probe.serve;

import dev.crucible.probe.head.BoundHead;
import dev.crucible.probe.head.HeadFile;
import dev.crucible.probe.head.ProbeEnsemble;
import dev.crucible.probe.head.ProbeHead;
import dev.crucible.probe.model.Device;
import dev.crucible.probe.model.ProbeSpec;
import dev.crucible.probe.model.ReferenceModel;
import dev.crucible.probe.model.ReferenceSpec;
import dev.crucible.probe.model.TextTokenizer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The whole scoring path of a probe model: tokenize each turn, run the reference model (through the
 * dynamic batcher), pool tokens per turn, aggregate turns, apply every head, take the worst case,
 * and compose the reward with the validity flag.
 */
public final class ProbeScorer implements AutoCloseable {
    private final ProbeSpec spec;
    private final ReferenceModel model;
    private final TextTokenizer tokenizer;
    private final List<BoundHead> heads;
    private final int[] layers;
    private final SequenceEncoder encoder;
    private final Timer headTimer;

    public ProbeScorer(ProbeSpec spec, ReferenceModel model, TextTokenizer tokenizer, List<BoundHead> heads,
                       SequenceEncoder encoder, MeterRegistry registry) {
        if (heads.isEmpty()) {
            throw new IllegalArgumentException("a probe needs at least one head");
        }
        for (BoundHead h : heads) {
            model.spec().outputName(h.layer());   // fails early on a layer the model lacks
            int expected = spec.turnAggregation().outputDim(h.pooling().outputDim(model.spec().hiddenSize()));
            if (h.head().inputDim() != expected) {
                throw new IllegalArgumentException("head '" + h.head().name() + "' expects " + h.head().inputDim()
                        + " features but layer " + h.layer() + " with pooling " + h.pooling().name()
                        + " and turn aggregation " + spec.turnAggregation().name() + " gives " + expected);
            }
        }
        this.spec = spec;
        this.model = model;
        this.tokenizer = tokenizer;
        this.heads = List.copyOf(heads);
        this.layers = layersOf(heads);
        this.encoder = encoder;
        this.headTimer = Timer.builder("probe_head").description("probe heads over one request")
                .register(registry);
    }

    /** Opens a probe model directory (probe.json + heads + the reference model it names). */
    public static ProbeScorer open(Path probeDir, Device device, BatchingOptions batching, MeterRegistry registry)
            throws Exception {
        ProbeSpec spec = ProbeSpec.read(probeDir);
        ReferenceSpec ref = spec.referenceSpec();
        List<BoundHead> heads = new ArrayList<>();
        for (ProbeSpec.HeadRef h : spec.heads()) {
            heads.add(new BoundHead(HeadFile.read(h.file()), h.layer(), h.pooling()));
        }
        ReferenceModel model = new ReferenceModel(ref, device, 0);
        TextTokenizer tokenizer = new TextTokenizer(ref.tokenizer(), ref.maxTokens());
        DynamicBatcher batcher = new DynamicBatcher(model, layersOf(heads), batching, registry);
        return new ProbeScorer(spec, model, tokenizer, heads, batcher, registry);
    }

    private static int[] layersOf(List<BoundHead> heads) {
        return heads.stream().mapToInt(BoundHead::layer).distinct().sorted().toArray();
    }

    public ProbeSpec spec() { return spec; }
    public ReferenceModel model() { return model; }
    public List<BoundHead> heads() { return heads; }
    public TextTokenizer tokenizer() { return tokenizer; }

    /** Tokenizes every turn; an item whose turn yields no token is rejected by the caller first. */
    public List<List<long[]>> tokenize(List<ScoreItem> items) {
        List<List<long[]>> out = new ArrayList<>(items.size());
        for (ScoreItem item : items) {
            List<long[]> turns = new ArrayList<>(item.turns().size());
            for (String t : item.turns()) {
                turns.add(tokenizer.encode(t));
            }
            out.add(turns);
        }
        return out;
    }

    public CompletableFuture<List<ScoreResult>> score(List<ScoreItem> items) {
        return score(items, tokenize(items));
    }

    public CompletableFuture<List<ScoreResult>> score(List<ScoreItem> items, List<List<long[]>> tokens) {
        List<long[]> flat = new ArrayList<>();
        for (List<long[]> turns : tokens) {
            for (long[] t : turns) {
                if (t.length == 0) {
                    return CompletableFuture.failedFuture(new IllegalArgumentException("empty turn"));
                }
                flat.add(t);
            }
        }
        return encoder.encode(flat).thenApply(hidden -> {
            long t0 = System.nanoTime();
            List<ScoreResult> results = new ArrayList<>(items.size());
            int k = 0;
            for (int i = 0; i < items.size(); i++) {
                ScoreItem item = items.get(i);
                int n = tokens.get(i).size();
                List<java.util.Map<Integer, float[][]>> turns = hidden.subList(k, k + n);
                k += n;
                int count = 0;
                for (long[] t : tokens.get(i)) {
                    count += t.length;
                }
                double[] logits = new double[heads.size()];
                for (int h = 0; h < logits.length; h++) {
                    BoundHead bh = heads.get(h);
                    float[][] perTurn = new float[n][];
                    for (int j = 0; j < n; j++) {
                        perTurn[j] = bh.pooling().pool(turns.get(j).get(bh.layer()));
                    }
                    logits[h] = bh.head().logit(spec.turnAggregation().pool(perTurn));
                }
                double logit = ProbeEnsemble.worstCase(logits);
                results.add(new ScoreResult(item.id(), logit, ProbeHead.sigmoid(logit),
                        spec.reward().reward(logit, item.valid()), item.valid(), logits, count));
            }
            headTimer.record(System.nanoTime() - t0, TimeUnit.NANOSECONDS);
            return results;
        });
    }

    @Override
    public void close() throws Exception {
        encoder.close();
        tokenizer.close();
        model.close();
    }
}
