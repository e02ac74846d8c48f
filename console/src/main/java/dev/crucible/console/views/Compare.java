package dev.crucible.console.views;

import dev.crucible.console.store.ConsoleError;
import dev.crucible.console.store.RolloutSummary;
import dev.crucible.console.store.RunStore;
import dev.crucible.console.store.SafeFiles;
import dev.crucible.trajectory.EventKind;
import dev.crucible.trajectory.TraceEvent;
import dev.crucible.trajectory.TraceText;
import dev.crucible.trajectory.TrajectoryReader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;

/**
 * Two rollouts of the same task (the same environment) side by side, aligned on their steps. A step is the event's own
 * {@code step} number where the recorder gave one (interactive mode); otherwise each action (a process started, an
 * environment-API call) begins the next step and what follows it (its output, file changes, findings) belongs to it,
 * so the n-th thing each agent did faces the other's n-th. Events before the first action are step 0. A page holds
 * {@code limit} steps from {@code from}; each side streams its trajectory once (memory: the page only).
 */
public final class Compare {
    public static final int MAX_STEPS = 200;
    static final int MAX_ROWS_PER_STEP = 50;
    private static final Set<String> ACTIONS = Set.of(EventKind.PROCESS_START, EventKind.STEP, EventKind.RESET, EventKind.VERIFY);

    public record Row(long seq, String kind, String summary, String severity) {}

    public record Side(String id, String phase, Double reward, boolean present, long steps, long events, List<String> problems) {}

    public record Step(long step, List<Row> a, List<Row> b, int moreA, int moreB) {}

    public record Page(String environment, Side a, Side b, long from, int limit, long steps, List<Step> rows) {}

    public static Page of(RunStore store, String a, String b, long from, int limit) {
        if (a == null) throw ConsoleError.badRequest("a: the first rollout's id is required (/compare?a=ID&b=ID)");
        if (b == null) throw ConsoleError.badRequest("b: the second rollout's id is required (/compare?a=ID&b=ID)");
        if (from < 0) throw ConsoleError.badRequest("from: " + from + " is below 0 (the first step is 0)");
        if (limit < 1 || limit > MAX_STEPS) throw ConsoleError.badRequest("limit: " + limit + " is outside 1.." + MAX_STEPS);
        RolloutSummary ra = store.summary(a);
        RolloutSummary rb = store.summary(b);
        if (ra.environment() == null || !ra.environment().equals(rb.environment())) {
            throw ConsoleError.badRequest("a and b are not rollouts of the same task: '" + a + "' ran environment " + ra.environment()
                    + ", '" + b + "' ran " + rb.environment() + " (pick two rollouts of one environment)");
        }
        TreeMap<Long, List<Row>> stepsA = new TreeMap<>();
        TreeMap<Long, List<Row>> stepsB = new TreeMap<>();
        TreeMap<Long, int[]> more = new TreeMap<>();
        Side sa = side(store, ra, from, limit, stepsA, more, 0);
        Side sb = side(store, rb, from, limit, stepsB, more, 1);
        List<Step> rows = new ArrayList<>();
        long last = Math.max(sa.steps(), sb.steps());
        for (long s = from; s < from + limit && s < last; s++) {
            int[] m = more.getOrDefault(s, new int[2]);
            rows.add(new Step(s, stepsA.getOrDefault(s, List.of()), stepsB.getOrDefault(s, List.of()), m[0], m[1]));
        }
        return new Page(ra.environment(), sa, sb, from, limit, last, rows);
    }

    /** One side: its events of steps from..from+limit, and how many steps it has in all. */
    private static Side side(RunStore store, RolloutSummary r, long from, int limit, TreeMap<Long, List<Row>> out, TreeMap<Long, int[]> more,
                             int which) {
        Path traj = store.folder(r.id()).resolve("trajectory");
        List<String> problems = new ArrayList<>();
        if (!SafeFiles.isDirectory(traj.resolve("segments"))) {
            problems.add("this rollout has no trajectory (no trajectory/segments folder beside its result.json)");
            return new Side(r.id(), r.phase(), r.reward(), false, 0, 0, problems);
        }
        long[] st = {0, -1, 0}; // actions seen, the highest step number given, events
        boolean[] numbered = {false};
        try {
            TrajectoryReader.read(traj, e -> {
                st[2]++;
                long step = stepOf(e, st, numbered);
                if (step < from || step >= from + limit) return;
                List<Row> rows = out.computeIfAbsent(step, k -> new ArrayList<>());
                if (rows.size() < MAX_ROWS_PER_STEP) {
                    rows.add(new Row(e.seq(), e.kind(), TraceText.summary(e), EventKind.FINDING.equals(e.kind()) ? e.text("severity") : null));
                } else {
                    more.computeIfAbsent(step, k -> new int[2])[which]++;
                }
            }, problems::add);
        } catch (IOException e) {
            problems.add("trajectory not read: " + e.getMessage());
        }
        long steps = numbered[0] ? st[1] + 1 : st[0] + 1;
        return new Side(r.id(), r.phase(), r.reward(), true, steps, st[2], problems);
    }

    private static long stepOf(TraceEvent e, long[] st, boolean[] numbered) {
        if (e.step() != null) {
            numbered[0] = true;
            st[1] = Math.max(st[1], e.step());
            return e.step();
        }
        if (numbered[0]) return Math.max(0, st[1]); // after numbered steps, an unnumbered event belongs to the last one
        if (ACTIONS.contains(e.kind())) st[0]++;
        return st[0];
    }
}
