package dev.crucible.probe.serve;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** Turns token sequences into hidden states: per sequence, layer → [len][hidden]. */
public interface SequenceEncoder extends AutoCloseable {
    CompletableFuture<List<Map<Integer, float[][]>>> encode(List<long[]> sequences);

    @Override
    default void close() {
    }
}
