package dev.crucible.controllers.rollout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * Writes that do not depend on each other, sent together instead of one after another (a gang's
 * NetworkPolicy, Service and PodGroup; then its members): the reconciler thread waits for the slowest, not
 * for the sum. Every write runs even when another fails; the first failure is then thrown.
 */
public final class ParallelWrites {
    /** Bounded: at most this many writes in flight for all reconcilers together. */
    private static final ExecutorService POOL = Executors.newFixedThreadPool(8, r -> {
        Thread t = new Thread(r, "crucible-parallel-writes");
        t.setDaemon(true);
        return t;
    });

    private ParallelWrites() {
    }

    /** The writes' results, in order. None or a single write runs on the calling thread. */
    public static <T> List<T> all(List<Supplier<T>> writes) {
        if (writes.size() <= 1) {
            return writes.stream().map(Supplier::get).toList();
        }
        List<CompletableFuture<T>> sent = writes.stream().map(w -> CompletableFuture.supplyAsync(w, POOL)).toList();
        List<T> results = new ArrayList<>();
        RuntimeException first = null;
        for (CompletableFuture<T> f : sent) {
            try {
                results.add(f.join());
            } catch (CompletionException e) {
                if (first == null) {
                    first = e.getCause() instanceof RuntimeException r ? r : e;
                }
            }
        }
        if (first != null) {
            throw first;
        }
        return results;
    }
}
