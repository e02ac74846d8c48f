package dev.crucible.tracestore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.tracestore.bench.IndexBench;
import dev.crucible.tracestore.index.RolloutFilter;
import dev.crucible.tracestore.index.RolloutIndex;
import dev.crucible.tracestore.index.RolloutRow;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The H2 index answers every filter exactly as a plain scan of the same rollouts does (names, order, fields). */
class IndexFilterTest {

    @Test
    void everyFilterAgreesWithAScan(@TempDir Path dir) throws Exception {
        try (RolloutIndex index = new RolloutIndex(dir)) {
            List<RolloutRow> rows = IndexBench.populate(index, 2000, 11);
            Map<String, RolloutFilter> filters = new java.util.LinkedHashMap<>();
            for (var f : IndexBench.filters().entrySet()) {
                for (int i : new int[] {0, 3, 17}) filters.put(f.getKey() + "#" + i, f.getValue().apply(i));
            }
            filters.put("until+maxReward", new RolloutFilter(null, null, null, null, null, Map.of(), null, 0.2, null,
                    java.time.Instant.parse("2026-11-10T00:00:00Z"), 1000));
            filters.put("one", RolloutFilter.one(rows.get(5).namespace(), rows.get(5).name()));
            filters.put("no namespace allowed", IndexBench.filters().get("newest").apply(0).withNamespaces(Set.of()));
            int nonEmpty = 0;
            for (var f : filters.entrySet()) {
                List<RolloutRow> got = index.query(f.getValue());
                List<RolloutRow> want = IndexBench.scan(rows, f.getValue());
                assertThat(got).as(f.getKey()).extracting(RolloutRow::name).containsExactlyElementsOf(want.stream().map(RolloutRow::name).toList());
                assertThat(got).as(f.getKey()).extracting(RolloutRow::phase, RolloutRow::reward, RolloutRow::detectors, RolloutRow::labels)
                        .containsExactlyElementsOf(want.stream().map(r -> org.assertj.core.groups.Tuple.tuple(r.phase(), r.reward(),
                                r.detectors(), r.labels())).toList());
                if (!got.isEmpty()) nonEmpty++;
            }
            assertThat(nonEmpty).isGreaterThanOrEqualTo(filters.size() - 5);
        }
    }
}
