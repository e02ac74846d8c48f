package dev.crucible.probe.train;

import dev.crucible.probe.head.HeadArchitecture;

/** One configuration of the sweep: where to read, how to pool, which head, how to balance. */
public record SweepCell(int layer, String pooling, String turnAggregation, HeadArchitecture architecture,
                        Balance balance) {
    public String label() {
        return "L" + layer + "/" + pooling + "/" + turnAggregation + "/" + architecture.id() + "/" + balance.id();
    }
}
