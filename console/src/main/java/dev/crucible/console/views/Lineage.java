package dev.crucible.console.views;

import dev.crucible.console.store.RolloutSummary;
import dev.crucible.console.store.RunStore;
import dev.crucible.console.store.SafeFiles;
import dev.crucible.trajectory.EventKind;
import dev.crucible.trajectory.TrajectoryReader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The snapshot lineage of a rollout as a tree: a rollout node holds the snapshots it took (from its trajectory's
 * {@code snapshot} events, with the event that recorded each, and result.json's {@code snapshots}); a snapshot node holds
 * the rollouts restored from it (result.json's {@code restoredFrom}), each a branch, or a revert when its {@code restored}
 * event says so ({@code trigger} revert: the hack policy's revert-and-continue). The tree starts at the first ancestor
 * found under RUNS; every node has its reward (rollouts) or the event it was taken at (snapshots) and a link.
 */
public final class Lineage {
    public static final int MAX_NODES = 500;

    public record Node(String type, String id, String kind, String phase, Double reward, Long seq, String trigger, String link,
                       String note, List<Node> children) {}

    public record Tree(String id, String root, int nodes, boolean capped, Node tree, List<String> problems) {}

    private record Shot(String id, Long seq, String trigger) {}

    private record Restore(String kind, Long seq) {}

    private final RunStore store;
    private final Map<String, RolloutSummary> byId;
    private final Map<String, String> takenBy = new HashMap<>();
    private final Map<String, List<String>> restoredFrom = new LinkedHashMap<>();
    private final List<String> problems = new ArrayList<>();
    private int nodes;

    private Lineage(RunStore store) {
        this.store = store;
        this.byId = store.index().byId();
        for (RolloutSummary r : store.index().rollouts()) {
            for (String s : r.snapshots()) takenBy.putIfAbsent(s, r.id());
            if (r.restoredFrom() != null) restoredFrom.computeIfAbsent(r.restoredFrom(), k -> new ArrayList<>()).add(r.id());
        }
    }

    public static Tree of(RunStore store, String id) {
        RolloutSummary start = store.summary(id);
        Lineage l = new Lineage(store);
        String root = start.id();
        Set<String> seen = new HashSet<>(Set.of(root));
        while (true) {
            RolloutSummary r = l.byId.get(root);
            String parent = r.restoredFrom() == null ? null : l.takenBy.get(r.restoredFrom());
            if (parent == null || !seen.add(parent)) break; // the first ancestor under RUNS (a cycle would be a forged result.json)
            root = parent;
        }
        Node tree = l.rollout(root, "root", new HashSet<>());
        return new Tree(id, root, l.nodes, l.nodes >= MAX_NODES, tree, l.problems);
    }

    private Node rollout(String id, String kind, Set<String> visited) {
        nodes++;
        RolloutSummary r = byId.get(id);
        visited.add(id);
        List<Shot> shots = new ArrayList<>();
        Restore restore = read(id, shots);
        for (String s : r.snapshots()) {
            if (shots.stream().noneMatch(x -> x.id().equals(s))) shots.add(new Shot(s, null, null));
        }
        String k = restore != null && "revert".equals(restore.kind()) ? "revert" : kind;
        List<Node> children = new ArrayList<>();
        String note = null;
        if (r.restoredFrom() != null && !takenBy.containsKey(r.restoredFrom()) && "root".equals(kind)) {
            note = "restored from snapshot " + r.restoredFrom() + ", taken by a rollout that is not under this RUNS folder";
        }
        for (Shot s : shots) {
            if (nodes >= MAX_NODES) break;
            nodes++;
            List<Node> branches = new ArrayList<>();
            for (String b : restoredFrom.getOrDefault(s.id(), List.of())) {
                if (nodes >= MAX_NODES) break;
                if (visited.contains(b)) continue;
                branches.add(rollout(b, "branch", visited));
            }
            String link = s.seq() == null ? "/trace?rollout=" + enc(id) : "/trace?rollout=" + enc(id) + "&event=" + s.seq();
            children.add(new Node("snapshot", s.id(), null, null, null, s.seq(), s.trigger(), link,
                    s.seq() == null ? "in result.json, not in the trajectory" : null, branches));
        }
        return new Node("rollout", id, k, r.phase(), r.reward(), restore == null ? null : restore.seq(), null,
                "/trace?rollout=" + enc(id), note, children);
    }

    /** This rollout's snapshot events: the snapshots it took, in order, and how it began when it was restored. */
    private Restore read(String id, List<Shot> shots) {
        Path traj = store.folder(id).resolve("trajectory");
        if (!SafeFiles.isDirectory(traj.resolve("segments"))) return null;
        Restore[] restore = {null};
        try {
            TrajectoryReader.read(traj, e -> {
                if (!EventKind.SNAPSHOT.equals(e.kind()) || e.text("id") == null) return;
                String op = e.text("op");
                if ("restored".equals(op) && restore[0] == null) {
                    boolean revert = "revert".equals(e.text("trigger")) || "reverted".equals(op);
                    restore[0] = new Restore(revert ? "revert" : "branch", e.seq());
                } else if (!"restored".equals(op) && shots.size() < MAX_NODES) {
                    shots.add(new Shot(e.text("id"), e.seq(), e.text("trigger")));
                }
            }, p -> problems.add(id + ": " + p));
        } catch (IOException e) {
            problems.add(id + ": trajectory not read (" + e.getMessage() + ")");
        }
        return restore[0];
    }

    static String enc(String s) { return java.net.URLEncoder.encode(s, java.nio.charset.StandardCharsets.UTF_8); }

}
