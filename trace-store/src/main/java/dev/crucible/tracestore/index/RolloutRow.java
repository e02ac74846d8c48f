package dev.crucible.tracestore.index;

import java.util.List;
import java.util.Map;

/** One rollout in the index: what its Rollout said when its first segment came, and what its trajectory says since. */
public record RolloutRow(String namespace, String name, String uid, String environment, String phase, Double reward,
                         List<String> detectors, Map<String, String> labels, String created, String updated,
                         long bytes, long events, boolean ended) {}
