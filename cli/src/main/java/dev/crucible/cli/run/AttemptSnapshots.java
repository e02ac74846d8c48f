package dev.crucible.cli.run;

import dev.crucible.cli.run.RunInputs.RolloutDoc;
import dev.crucible.verifier.monitor.Finding;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A snapshot-able attempt's snapshots: {@code running.json} published while its agent runs (so it can be
 * snapshotted by itself or by {@code crucible snapshot DIR}), snapshots taken on a trigger (a finding, the
 * period) and pruned to {@code keep}, and the list of those still in the store for result.json.
 */
final class AttemptSnapshots {
    /** What of the attempt running.json records. */
    record Attempt(long t0, Path workspace, String sandboxName, long deadlineSeconds, String startedAt, String restoredFrom) {
    }

    private final RolloutDoc doc;
    private final int attempt;
    private final AttemptDir dir;
    private final AttemptOptions opt;
    private final Progress progress;
    private volatile RunningRollout live; // published while a snapshot-able agent runs
    private String group;
    private int findingsSeen; // the watch's view, for a snapshot right after a new finding
    private long nextSnapshot = Long.MAX_VALUE; // System.nanoTime() of the next periodic snapshot

    AttemptSnapshots(RolloutDoc doc, int attempt, AttemptDir dir, AttemptOptions opt, Progress progress) {
        this.doc = doc;
        this.attempt = attempt;
        this.dir = dir;
        this.opt = opt;
        this.progress = progress;
    }

    /** Writes running.json so the run can be snapshotted, by itself or by {@code crucible snapshot DIR}. */
    void publish(long rootPid, List<String> command, Path agentView, Attempt a) throws IOException {
        SnapshotPolicy policy = policy();
        List<String> manifests = new ArrayList<>(List.of(doc.environment().file().toString()));
        Path rolloutFile = Path.of(doc.file()).toAbsolutePath().normalize();
        if (!manifests.contains(rolloutFile.toString())) manifests.add(rolloutFile.toString());
        group = RolloutSnapshotter.newGroup(doc.name(), attempt);
        long clockStart = System.currentTimeMillis() - (System.nanoTime() - a.t0()) / 1_000_000;
        RunningRollout r = new RunningRollout(rootPid, dev.crucible.snapshot.target.ProcFs.startTime(rootPid), ProcessHandle.current().pid(),
                group, manifests, doc.name(), attempt, command, agentView.toString(), dir.root().toString(),
                agentView.relativize(agentView.resolve(dir.root().relativize(a.workspace()))).toString(), LocalRollout.AGENT_EXIT,
                policy.store().toAbsolutePath().toString(), a.sandboxName(), a.deadlineSeconds(), a.startedAt(), clockStart,
                a.restoredFrom(), null, null);
        r.write(dir.root());
        findingsSeen = 0;
        nextSnapshot = policy.every() == null ? Long.MAX_VALUE : System.nanoTime() + policy.every().toNanos();
        live = r;
        progress.info("snapshot-able: " + (policy.every() == null ? "no periodic snapshots" : "a snapshot every " + Text.duration(policy.every())
                + ", the newest " + policy.keep() + " kept") + " in " + policy.store() + "; take one now with: crucible snapshot " + dir.root());
    }

    /**
     * One tick of the agent's watch: while published and the agent lives, a snapshot right after a new
     * finding (the state just after a hack, to inspect, or to branch from an earlier snapshot with a patch)
     * and one each period.
     */
    void onTick(List<Finding> findings, ProcessHandle agent) {
        int seen = findingsSeen;
        findingsSeen = findings.size();
        if (live == null) return;
        if (findings.size() > seen && AgentProcesses.alive(agent)) snapshotNow("finding " + findings.get(findings.size() - 1).detector());
        if (System.nanoTime() >= nextSnapshot && AgentProcesses.alive(agent)) {
            snapshotNow("periodic");
            nextSnapshot = System.nanoTime() + policy().every().toNanos();
        }
    }

    void unpublish() {
        live = null;
        try {
            Files.deleteIfExists(dir.root().resolve(RunningRollout.FILE));
        } catch (IOException e) {
            progress.info("could not remove " + dir.root().resolve(RunningRollout.FILE) + ": " + e.getMessage() + " (it is refused as stale)");
        }
    }

    /** Each snapshot this attempt takes (id, trigger, parent, freeze window), to its trajectory; null: none. */
    volatile java.util.function.Consumer<java.util.Map<String, Object>> onSnapshot;

    void snapshotNow(String trigger) {
        RunningRollout r = live;
        if (r == null) return;
        try {
            dev.crucible.snapshot.client.store.Manifest m = RolloutSnapshotter.take(r, trigger);
            progress.info("snapshot " + m.id + " (" + trigger + "): frozen " + m.freezeWindowMs + " ms, "
                    + String.format("%.1f MiB", (m.imageBytes + (m.workspaceBytes == null ? 0 : m.workspaceBytes)) / 1048576.0));
            var listener = onSnapshot;
            if (listener != null) {
                java.util.Map<String, Object> ev = new java.util.LinkedHashMap<>();
                ev.put("op", "taken");
                ev.put("id", m.id);
                ev.put("trigger", trigger);
                if (r.restoredFrom() != null) ev.put("parent", r.restoredFrom()); // the snapshot this branch continued from
                ev.put("freezeWindowMs", m.freezeWindowMs);
                listener.accept(ev);
            }
            SnapshotPolicy policy = opt.snapshots();
            if (policy != null) {
                List<String> pruned = RolloutSnapshotter.prune(Path.of(r.store()), r.group(), policy.keep());
                if (!pruned.isEmpty()) progress.info("pruned " + String.join(", ", pruned) + " (--snapshot-keep " + policy.keep() + ")");
            }
        } catch (Exception e) {
            progress.info("snapshot (" + trigger + ") failed, the agent was thawed and runs on: " + e.getMessage());
        }
    }

    /** The attempt's snapshots still in the store (pruned ones are gone); null for runs that were not snapshot-able. */
    List<RolloutResult.SnapshotRef> refs() {
        if (group == null) return null;
        Path store = policy().store().toAbsolutePath();
        List<RolloutResult.SnapshotRef> out = new ArrayList<>();
        try {
            for (dev.crucible.snapshot.client.store.Manifest m : RolloutSnapshotter.of(store, group)) {
                RunningRollout meta = RolloutSnapshotter.metadata(store, m.id);
                out.add(new RolloutResult.SnapshotRef(m.id, m.createdAt == null ? null : m.createdAt.toString(), m.freezeWindowMs,
                        meta == null ? null : meta.trigger()));
            }
        } catch (Exception e) {
            progress.info("could not list the snapshots in " + store + ": " + e.getMessage());
        }
        return out;
    }

    /** The run's snapshot policy, or the defaults (no period, the newest 3 kept, the default store) when it names none. */
    private SnapshotPolicy policy() {
        return opt.snapshots() != null ? opt.snapshots() : new SnapshotPolicy(null, 3, SnapshotPolicy.defaultStore());
    }
}
