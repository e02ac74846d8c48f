package dev.crucible.probe.serve;

import dev.crucible.probe.model.ReferenceModel;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Groups sequences from concurrent requests into one forward pass under a padded-token budget.
 * One worker thread owns the model: a GPU runs one batch at a time anyway, and a bigger batch is
 * where its throughput comes from. Waiting sequences are packed by length (see {@link #byLength});
 * a sequence longer than the budget runs alone.
 */
public final class DynamicBatcher implements SequenceEncoder {
    private record Pending(long[] ids, CompletableFuture<Map<Integer, float[][]>> result) {
    }

    private final ReferenceModel model;
    private final int[] layers;
    private final BatchingOptions options;
    private final LinkedBlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
    private final Thread worker;
    private volatile boolean running = true;
    private final DistributionSummary batchSequences;
    private final DistributionSummary batchTokens;
    private final Counter tokens;
    private final Timer forward;

    public DynamicBatcher(ReferenceModel model, int[] layers, BatchingOptions options, MeterRegistry registry) {
        this.model = model;
        this.layers = layers.clone();
        this.options = options;
        this.batchSequences = DistributionSummary.builder("probe_batch_sequences")
                .description("sequences per forward pass").register(registry);
        this.batchTokens = DistributionSummary.builder("probe_batch_padded_tokens")
                .description("padded tokens per forward pass").register(registry);
        this.tokens = Counter.builder("probe_tokens").description("real tokens run through the reference model")
                .register(registry);
        this.forward = Timer.builder("probe_forward").description("reference model forward pass")
                .register(registry);
        this.worker = new Thread(this::loop, "probe-batcher");
        this.worker.setDaemon(true);
        this.worker.start();
    }

    @Override
    public CompletableFuture<List<Map<Integer, float[][]>>> encode(List<long[]> sequences) {
        List<CompletableFuture<Map<Integer, float[][]>>> futures = new ArrayList<>(sequences.size());
        for (long[] ids : sequences) {
            CompletableFuture<Map<Integer, float[][]>> f = new CompletableFuture<>();
            futures.add(f);
            if (!running) {
                f.completeExceptionally(new IllegalStateException("batcher closed"));
            } else {
                queue.add(new Pending(ids, f));
            }
        }
        return CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new))
                .thenApply(v -> futures.stream().map(CompletableFuture::join).toList());
    }

    private void loop() {
        while (running) {
            try {
                Pending first = queue.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                // gather for up to maxWait, or until a full budget of real tokens is waiting
                List<Pending> gathered = new ArrayList<>();
                gathered.add(first);
                long real = first.ids().length;
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(options.maxWaitMillis());
                while (real < options.tokenBudget()) {
                    long left = deadline - System.nanoTime();
                    Pending next = left > 0 ? queue.poll(left, TimeUnit.NANOSECONDS) : queue.poll();
                    if (next == null) {
                        break;
                    }
                    gathered.add(next);
                    real += next.ids().length;
                }
                for (List<Pending> batch : byLength(gathered, options.tokenBudget())) {
                    run(batch, batch.get(0).ids().length);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        Pending p;
        while ((p = queue.poll()) != null) {
            p.result().completeExceptionally(new IllegalStateException("batcher closed"));
        }
    }

    /**
     * Longest first, each batch filled while max length × count stays within the budget: sequences
     * of like length share a pass, so short ones are not padded to a long neighbour's length as in
     * arrival order. Every gathered sequence runs this round (no starvation); one over budget runs alone.
     */
    static List<List<Pending>> byLength(List<Pending> gathered, long budget) {
        List<Pending> sorted = new ArrayList<>(gathered);
        sorted.sort((a, b) -> Integer.compare(b.ids().length, a.ids().length));
        List<List<Pending>> out = new ArrayList<>();
        List<Pending> batch = new ArrayList<>();
        for (Pending p : sorted) {
            if (!batch.isEmpty() && (long) batch.get(0).ids().length * (batch.size() + 1) > budget) {
                out.add(batch);
                batch = new ArrayList<>();
            }
            batch.add(p);
        }
        out.add(batch);
        return out;
    }

    private void run(List<Pending> batch, int maxLen) {
        try {
            List<long[]> seqs = batch.stream().map(Pending::ids).toList();
            long t0 = System.nanoTime();
            Map<Integer, float[][][]> hidden = model.forward(seqs, layers);
            forward.record(System.nanoTime() - t0, TimeUnit.NANOSECONDS);
            batchSequences.record(batch.size());
            batchTokens.record((double) maxLen * batch.size());
            long real = 0;
            for (int i = 0; i < batch.size(); i++) {
                real += seqs.get(i).length;
                Map<Integer, float[][]> perLayer = new HashMap<>();
                for (int layer : layers) {
                    perLayer.put(layer, hidden.get(layer)[i]);
                }
                batch.get(i).result().complete(perLayer);
            }
            tokens.increment(real);
        } catch (Exception | Error e) {
            for (Pending p : batch) {
                p.result().completeExceptionally(e);
            }
        }
    }

    @Override
    public void close() {
        running = false;
        worker.interrupt();
        try {
            worker.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
