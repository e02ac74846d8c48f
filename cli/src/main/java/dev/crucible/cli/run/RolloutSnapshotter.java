package dev.crucible.cli.run;

import dev.crucible.snapshot.LocalSnapshots;
import dev.crucible.snapshot.local.RolloutSnapshotFiles;
import dev.crucible.snapshot.client.store.Manifest;
import dev.crucible.snapshot.client.store.SnapshotState;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;

/**
 * Takes snapshots of a running local rollout, from the run itself (periodic) or from another
 * process ({@code crucible snapshot DIR}). A lock file per rollout in the store serialises the two:
 * two CRIU dumps of one tree at once would fight over its freezer cgroup.
 */
public final class RolloutSnapshotter {
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS");

    private RolloutSnapshotter() {}

    /** Snapshots the rollout now; the agent keeps running. Throws (with the engine's reason) when it failed; the snapshot is then FAILED. */
    public static Manifest take(RunningRollout r, String trigger) throws IOException {
        Path store = Path.of(r.store());
        Path locks = Files.createDirectories(store.resolve("rollout-locks"));
        try (FileChannel ch = FileChannel.open(locks.resolve(r.group() + ".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             FileLock ignored = ch.lock()) {
            long elapsed = System.currentTimeMillis() - r.clockStartEpochMs();
            String id = idFor(r);
            return new LocalSnapshots(store).snapshotRollout(id, r.agentPid(), r.root(), r.group(), r.withSnapshot(elapsed, trigger).toJson(),
                    true);
        }
    }

    /** Snapshot ids: the group (rollout, attempt, run), then a timestamp, so they sort and read in order. */
    static String idFor(RunningRollout r) {
        String stamp = LocalDateTime.now().format(STAMP);
        String base = r.group();
        if (base.length() > 100) base = base.substring(0, 100);
        return (base + "-" + stamp).replaceAll("-+$", "");
    }

    /** A group name that is also a valid snapshot id prefix: [a-z0-9_-], starting with a letter or digit. */
    public static String newGroup(String rollout, int attempt) {
        String clean = rollout.toLowerCase().replaceAll("[^a-z0-9_-]+", "-").replaceAll("^[-_]+", "");
        if (clean.length() > 60) clean = clean.substring(0, 60);
        return (clean.isEmpty() ? "rollout" : clean) + "-a" + attempt + "-" + UUID.randomUUID().toString().substring(0, 6);
    }

    /** The rollout's COMPLETE snapshots, oldest first. */
    public static List<Manifest> of(Path store, String group) {
        if (!Files.isDirectory(store.resolve("snapshots"))) return List.of();
        return new LocalSnapshots(store).list().stream().filter(m -> group.equals(m.group) && m.state == SnapshotState.COMPLETE)
                .sorted(Comparator.comparing((Manifest m) -> m.createdAt)).toList();
    }

    public static List<String> prune(Path store, String group, int keep) {
        return new LocalSnapshots(store).prune(group, keep);
    }

    /** The rollout document stored in a snapshot, or null when the snapshot is not a rollout's (a raw-pid snapshot). */
    public static RunningRollout metadata(Path store, String id) throws RunningRollout.NotRunning {
        Path f = store.resolve("snapshots").resolve(id).resolve(RolloutSnapshotFiles.METADATA);
        if (!Files.isRegularFile(f)) return null;
        try {
            return RunningRollout.parse(Files.readAllBytes(f), f.toString());
        } catch (IOException e) {
            throw new RunningRollout.NotRunning(f + ": unreadable: " + e.getMessage());
        }
    }
}
