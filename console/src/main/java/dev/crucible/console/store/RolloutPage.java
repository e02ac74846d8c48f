package dev.crucible.console.store;

import java.util.List;

/** One page of the rollouts that pass a query: {@code total} of {@code all} passed; {@code problems}: the index's. */
public record RolloutPage(String dir, int all, int total, int page, int size, int pages, List<RolloutSummary> items, List<String> problems) {

    public static RolloutPage of(RunStore store, RolloutQuery q) {
        RunStore.Index index = store.index();
        List<RolloutSummary> matched = index.rollouts().stream().filter(q::matches).toList();
        int pages = Math.max(1, (matched.size() + q.size() - 1) / q.size());
        long from = (long) (q.page() - 1) * q.size();
        List<RolloutSummary> items = from >= matched.size() ? List.of()
                : matched.subList((int) from, (int) Math.min(matched.size(), from + q.size()));
        return new RolloutPage(store.root().toString(), index.rollouts().size(), matched.size(), q.page(), q.size(), pages, items, index.problems());
    }
}
