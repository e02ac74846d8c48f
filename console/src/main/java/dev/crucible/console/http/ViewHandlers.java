package dev.crucible.console.http;

import dev.crucible.console.search.SearchIndex;
import dev.crucible.console.search.SearchQuery;
import dev.crucible.console.store.ConsoleError;
import dev.crucible.console.store.RunStore;
import dev.crucible.console.views.Compare;
import dev.crucible.console.views.FalseAlarm;
import dev.crucible.console.views.Lineage;
import io.vertx.core.MultiMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The API of the views beyond the list and the trace: search, the snapshot lineage, two rollouts side by side, a false alarm. */
final class ViewHandlers {
    private final RunStore store;
    private final SearchIndex search;
    private final java.nio.file.Path snapshots;

    ViewHandlers(RunStore store, SearchIndex search) {
        this(store, search, null);
    }

    /** {@code snapshots}: the snapshot store the workspace view reads (null: none, as over the cluster). */
    ViewHandlers(RunStore store, SearchIndex search, java.nio.file.Path snapshots) {
        this.store = store;
        this.search = search;
        this.snapshots = snapshots;
    }

    Object search(MultiMap q) {
        return SearchQuery.parse(ApiHandlers.params(q, Set.of())).run(search);
    }

    Object lineage(MultiMap q) {
        Map<String, List<String>> p = ApiHandlers.params(q, Set.of("id"));
        return Lineage.of(store, required(p, "id", "the rollout's id"));
    }

    Object compare(MultiMap q) {
        Map<String, List<String>> p = ApiHandlers.params(q, Set.of("a", "b", "from", "limit"));
        return Compare.of(store, ApiHandlers.one(p, "a"), ApiHandlers.one(p, "b"), ApiHandlers.whole(p, "from", 0),
                (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, ApiHandlers.whole(p, "limit", 50))));
    }

    Object falseAlarm(MultiMap q) {
        Map<String, List<String>> p = ApiHandlers.params(q, Set.of("id", "seq"));
        String id = required(p, "id", "the rollout's id");
        required(p, "seq", "the finding's event number (#N on the timeline)");
        return FalseAlarm.of(store, id, ApiHandlers.whole(p, "seq", 1));
    }

    Object workspace(MultiMap q) {
        Map<String, List<String>> p = ApiHandlers.params(q, Set.of("id", "seq", "path"));
        String id = required(p, "id", "the rollout's id");
        required(p, "seq", "the step's event number (#N on the timeline)");
        return dev.crucible.console.workspace.WorkspaceView.of(store, snapshots, id, ApiHandlers.whole(p, "seq", 1), ApiHandlers.one(p, "path"));
    }

    private static String required(Map<String, List<String>> p, String name, String what) {
        String v = ApiHandlers.one(p, name);
        if (v == null) throw ConsoleError.badRequest(name + ": " + what + " is required");
        return v;
    }
}
