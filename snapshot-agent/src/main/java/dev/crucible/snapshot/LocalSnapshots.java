package dev.crucible.snapshot;

import dev.crucible.snapshot.client.api.CommitAction;
import dev.crucible.snapshot.engine.EngineBuilder;
import dev.crucible.snapshot.engine.EngineConfig;
import dev.crucible.snapshot.local.RolloutSnapshotFiles;
import dev.crucible.snapshot.client.api.RestoreRequest;
import dev.crucible.snapshot.client.api.RestoreResult;
import dev.crucible.snapshot.engine.SnapshotEngine;
import dev.crucible.snapshot.client.api.SnapshotRequest;
import dev.crucible.snapshot.client.store.Manifest;
import dev.crucible.snapshot.client.store.SnapshotId;
import dev.crucible.snapshot.client.api.TargetSpec;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.UUID;

/**
 * Library entry points for local rollouts ({@code crucible snapshot} / {@code crucible restore}),
 * for the local runtime to call in-process: no HTTP, same engine and same safety rules.
 *
 * <p>The rollout's process tree should be started as {@code unshare --pid --fork setsid CMD}
 * (PID 1 of its own PID namespace): only then can its images be restored while the original
 * still runs, and restored more than once (branches). Restored processes reopen files at their
 * original absolute paths; {@code outDir} receives the workspace as it was at snapshot time, and
 * a runtime that wants each branch to write its own copy runs the branch where outDir is mounted
 * at the original path (a mount namespace or container).
 */
public final class LocalSnapshots {

    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");

    private final Path store;

    public LocalSnapshots(Path store) {
        this.store = store;
    }

    /** Snapshot (non-destructive: the tree keeps running) of the tree rooted at {@code pid}, with its workspace. */
    public static Manifest snapshot(long pidOfTreeRoot, Path workspaceDir, Path store) {
        return new LocalSnapshots(store).snapshot(newId(), pidOfTreeRoot, workspaceDir, null);
    }

    /** Restores snapshot {@code id}: workspace into {@code outDir} (empty or absent), processes via CRIU. */
    public static RestoreResult restore(Path store, String id, Path outDir) {
        return new LocalSnapshots(store).restore(id, outDir);
    }

    public Manifest snapshot(String id, long pidOfTreeRoot, Path workspaceDir, String group) {
        EngineBuilder b = new EngineBuilder().store(store);
        if (workspaceDir != null) {
            b.workspaceRoot(workspaceDir.toAbsolutePath());
        }
        try (SnapshotEngine engine = b.build()) {
            engine.recover();
            SnapshotRequest r = new SnapshotRequest(id, group, TargetSpec.ofPid(pidOfTreeRoot), null, false, false,
                    workspaceDir == null ? null : workspaceDir.toAbsolutePath().toString(), null, null);
            return engine.snapshot(r, CommitAction.THAW);
        }
    }

    /**
     * Snapshot of a local rollout: the tree at {@code pidOfTreeRoot} (left running) and
     * {@code attemptRoot} archived while frozen, plus {@code metadata} written as
     * {@value RolloutSnapshotFiles#METADATA} into the snapshot before commit, so its checksum is
     * verified with the images at restore. {@code ownNetworkNamespace}: the tree has its own
     * network namespace, which CRIU then dumps without locking it through iptables.
     * Any failure thaws the tree and marks the snapshot FAILED (the engine's rules).
     */
    public Manifest snapshotRollout(String id, long pidOfTreeRoot, Path attemptRoot, String group, byte[] metadata,
                                    boolean ownNetworkNamespace) {
        Path root = attemptRoot.toAbsolutePath().normalize();
        // The tree is in scope as the agent named by ROOT/running.json (pid + start time), which the run wrote.
        EngineBuilder b = new EngineBuilder().store(store).workspaceRoot(root).rolloutRoot(root);
        if (ownNetworkNamespace) {
            b.config(EngineConfig.defaults(List.of(root)).withExtraDumpArgs(List.of("--network-lock", "skip")));
        }
        try (SnapshotEngine engine = b.build()) {
            engine.recover();
            SnapshotRequest r = new SnapshotRequest(id, group, TargetSpec.ofPid(pidOfTreeRoot), null, false, false,
                    root.toString(), null, null);
            engine.prepare(r);
            engine.dump(id);
            try {
                java.nio.file.Files.write(engine.store().inSnapshot(SnapshotId.of(id), RolloutSnapshotFiles.METADATA), metadata);
            } catch (java.io.IOException | RuntimeException e) {
                engine.abort(id, "cannot write " + RolloutSnapshotFiles.METADATA + ": " + e.getMessage());
                throw new IllegalStateException("snapshot '" + id + "' failed: cannot write its rollout metadata: " + e.getMessage(), e);
            }
            return engine.commit(id, CommitAction.THAW);
        }
    }

    /** Keeps the newest {@code keep} COMPLETE snapshots of {@code group}; deletes older ones. Returns the deleted ids. */
    public List<String> prune(String group, int keep) {
        try (SnapshotEngine engine = new EngineBuilder().store(store).build()) {
            List<Manifest> complete = engine.list().stream()
                    .filter(m -> group.equals(m.group) && m.state == dev.crucible.snapshot.client.store.SnapshotState.COMPLETE)
                    .sorted(java.util.Comparator.comparing((Manifest m) -> m.createdAt).reversed()).toList();
            List<String> deleted = new java.util.ArrayList<>();
            for (Manifest m : complete.subList(Math.min(keep, complete.size()), complete.size())) {
                if (engine.delete(m.id)) deleted.add(m.id);
            }
            return deleted;
        }
    }

    public Path store() {
        return store;
    }

    public RestoreResult restore(String id, Path outDir) {
        EngineBuilder b = new EngineBuilder().store(store);
        Path out = outDir == null ? null : outDir.toAbsolutePath();
        if (out != null) {
            b.workspaceRoot(out.getParent());
        }
        try (SnapshotEngine engine = b.build()) {
            Manifest m = engine.store().require(dev.crucible.snapshot.client.store.SnapshotId.of(id));
            boolean withDisk = out != null && m.workspaceSha256 != null;
            return engine.restore(new RestoreRequest(id, withDisk ? out.toString() : null, true, false));
        }
    }

    public List<Manifest> list() {
        try (SnapshotEngine engine = new EngineBuilder().store(store).build()) {
            return engine.list();
        }
    }

    public static String newId() {
        return "local-" + LocalDateTime.now().format(STAMP) + "-" + UUID.randomUUID().toString().substring(0, 6);
    }
}
