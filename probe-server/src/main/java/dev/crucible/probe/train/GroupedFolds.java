package dev.crucible.probe.train;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * Cross-validation folds that keep every group (e.g. repository) whole, so each fold measures
 * transfer to unseen groups (PROPEL's cross-repository folds). Groups are shuffled with the seed,
 * then placed largest first into the fold with the fewest rows.
 */
public final class GroupedFolds {
    private GroupedFolds() {
    }

    /** Fold index per row; fewer groups than folds gives one fold per group. */
    public static int[] assign(List<String> groups, int folds, long seed) {
        Map<String, List<Integer>> byGroup = new TreeMap<>();
        for (int i = 0; i < groups.size(); i++) {
            byGroup.computeIfAbsent(groups.get(i), g -> new ArrayList<>()).add(i);
        }
        if (byGroup.size() < 2) {
            throw new IllegalArgumentException("grouped cross-validation needs at least 2 groups, found "
                    + byGroup.size());
        }
        int k = Math.min(folds, byGroup.size());
        List<String> keys = new ArrayList<>(byGroup.keySet());
        Collections.shuffle(keys, new Random(seed));
        keys.sort((a, b) -> Integer.compare(byGroup.get(b).size(), byGroup.get(a).size()));
        int[] size = new int[k];
        int[] fold = new int[groups.size()];
        Map<String, Integer> groupFold = new HashMap<>();
        for (String g : keys) {
            int best = 0;
            for (int f = 1; f < k; f++) {
                if (size[f] < size[best]) {
                    best = f;
                }
            }
            groupFold.put(g, best);
            size[best] += byGroup.get(g).size();
        }
        for (int i = 0; i < groups.size(); i++) {
            fold[i] = groupFold.get(groups.get(i));
        }
        return fold;
    }

    public static int count(int[] fold) {
        int max = -1;
        for (int f : fold) {
            max = Math.max(max, f);
        }
        return max + 1;
    }
}
