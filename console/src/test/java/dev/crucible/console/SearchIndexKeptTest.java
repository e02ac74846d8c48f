package dev.crucible.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.console.search.SearchIndex;
import dev.crucible.console.search.SearchQuery;
import dev.crucible.console.store.RunStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The search index kept in RUNS between starts: a second start re-indexes nothing that did not change, a rollout
 * rewritten or added is indexed, one removed is dropped (its events no longer found), and a temporary index starts empty.
 */
class SearchIndexKeptTest {

    static List<String> ids(SearchIndex index, String q) {
        SearchQuery.Answer a = SearchQuery.parse(Map.of("q", List.of(q), "size", List.of("100"))).run(index);
        return a.items().stream().map(SearchQuery.RolloutHits::id).sorted().toList();
    }

    @Test
    void aSecondStartReindexesOnlyWhatChanged(@TempDir Path tmp) throws Exception {
        Path runs = Files.createDirectories(tmp.resolve("runs"));
        for (int i = 0; i < 6; i++) {
            RunsFixture.attempt(runs, "r/a" + i, "calc", "2026-11-30T10:0" + i + ":00Z", i % 2 == 0 ? List.of(RunsFixture.conftestHack(9)) : List.of());
        }
        Path kept = tmp.resolve("index"); // beside RUNS, never under it
        long events;
        try (SearchIndex first = new SearchIndex(new RunStore(runs, 0), kept, false)) {
            assertThat(first.sync()).isEqualTo(6);
            events = first.progress().events();
            assertThat(ids(first, "rep.outcome")).containsExactly("r/a0", "r/a2", "r/a4");
        }
        assertThat(Files.isDirectory(kept)).isTrue();
        RunStore store = new RunStore(runs, 0);
        try (SearchIndex second = new SearchIndex(store, kept, false)) {
            assertThat(second.progress().indexed()).isEqualTo(6);
            assertThat(second.progress().events()).isEqualTo(events);
            assertThat(ids(second, "rep.outcome")).containsExactly("r/a0", "r/a2", "r/a4"); // before any pass: the kept index answers
            assertThat(second.sync()).as("rollouts re-indexed at a start with nothing changed").isZero();
        }
        // one removed, one rewritten (its result.json), one added
        try (Stream<Path> s = Files.walk(runs.resolve("r/a0"))) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
        }
        RunsFixture.label(runs.resolve("r/a1"), Map.of("team", "a"));
        RunsFixture.attempt(runs, "r/new", "calc", "2026-11-30T11:00:00Z", List.of(RunsFixture.conftestHack(9)));
        try (SearchIndex third = new SearchIndex(new RunStore(runs, 0), kept, false)) {
            assertThat(third.sync()).isEqualTo(3);
            assertThat(ids(third, "rep.outcome")).containsExactly("r/a2", "r/a4", "r/new");
            assertThat(third.progress().indexed()).isEqualTo(6);
        }
        // a temporary index is rebuilt: nothing until its first pass
        Path temp = Files.createTempDirectory("search-temp-");
        try (SearchIndex t = new SearchIndex(new RunStore(runs, 0), temp, true)) {
            assertThat(t.progress().indexed()).isZero();
            assertThat(t.sync()).isEqualTo(6);
        }
        assertThat(Files.exists(temp)).isFalse();
    }
}
