package dev.crucible.probe.head;

import dev.crucible.probe.pooling.Pooling;

/**
 * A head together with where it reads: its layer and token pooling (a ProbeModel may ensemble heads
 * over different layers or poolings; the turn aggregation is the model's).
 */
public record BoundHead(ProbeHead head, int layer, Pooling pooling) {
}
