package dev.crucible.probe.train;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Held-out figures per group (e.g. repository): a probe that works on average can still fail on
 * whole repositories, and a data team filtering by repository needs to see which.
 */
public final class GroupFigures {
    private GroupFigures() {
    }

    public static Map<String, HeldOutFigures> of(List<String> groups, int[] labels, double[] calibratedLogits) {
        Map<String, List<Integer>> byGroup = new TreeMap<>();
        for (int i = 0; i < groups.size(); i++) {
            byGroup.computeIfAbsent(groups.get(i), g -> new ArrayList<>()).add(i);
        }
        Map<String, HeldOutFigures> out = new TreeMap<>();
        byGroup.forEach((g, rows) -> {
            int[] idx = rows.stream().mapToInt(Integer::intValue).toArray();
            out.put(g, HeldOutFigures.of(FoldRows.pick(labels, idx), FoldRows.pick(calibratedLogits, idx)));
        });
        return out;
    }
}
