package dev.crucible.snapshot.engine;

import dev.crucible.snapshot.client.api.CommitAction;
import dev.crucible.snapshot.client.api.DumpResult;
import dev.crucible.snapshot.client.api.PrepareResult;
import dev.crucible.snapshot.client.api.RestoreRequest;
import dev.crucible.snapshot.client.api.RestoreResult;
import dev.crucible.snapshot.client.api.RuntimeCheckpoint;
import dev.crucible.snapshot.client.api.SnapshotRequest;
import dev.crucible.snapshot.criu.CriuBinary;
import dev.crucible.snapshot.criu.CriuRunner;
import dev.crucible.snapshot.freeze.FreezeHandle;
import dev.crucible.snapshot.freeze.FreezeJournal;
import dev.crucible.snapshot.freeze.Freezer;
import dev.crucible.snapshot.gpu.CudaCheckpoint;
import dev.crucible.snapshot.metrics.SnapshotMetrics;
import dev.crucible.snapshot.store.GarbageCollector;
import dev.crucible.snapshot.store.ImageStore;
import dev.crucible.snapshot.client.store.Manifest;
import dev.crucible.snapshot.store.ManifestSeal;
import dev.crucible.snapshot.store.RetentionPolicy;
import dev.crucible.snapshot.client.store.SnapshotId;
import dev.crucible.snapshot.client.store.SnapshotState;
import dev.crucible.snapshot.target.ProcessTree;
import dev.crucible.snapshot.target.ResolvedTarget;
import dev.crucible.snapshot.target.TargetResolver;
import dev.crucible.snapshot.target.TargetScope;
import dev.crucible.snapshot.container.ContainerRuntime;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The snapshot transaction: prepare (GPU suspend, iterative pre-dumps, freeze) → dump (final CRIU
 * dump + workspace archive while frozen) → commit (thaw or stop, then checksums) or abort (thaw,
 * FAILED). Safety rules, in order of importance:
 * <ol>
 *   <li>a frozen tree is always thawed: on any error (try/finally), on abort, and by a watchdog
 *       at the freeze deadline that never waits for the (possibly hung) request thread;</li>
 *   <li>a freeze is journalled (fsync) before it happens, so a restarted agent thaws it;</li>
 *   <li>a snapshot that did not complete is marked FAILED, and only COMPLETE ones are restored.</li>
 * </ol>
 * This class sequences the phases and checks requests; {@link FreezeGuard} keeps rules 1 and 2,
 * {@link DumpPhases} runs GPU suspension and CRIU, {@link Restorer} and {@link Recovery} the rest.
 */
public final class SnapshotEngine implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SnapshotEngine.class);

    private final EngineConfig config;
    private final ImageStore store;
    private final CriuRunner criu;
    private final CudaCheckpoint cuda;
    private final Freezer freezer;
    private final TargetResolver resolver;
    private final SnapshotMetrics metrics;
    private final FreezeJournal journal;
    private final TargetScope scope;
    private final ManifestSeal seal;
    private final Sessions sessions = new Sessions();
    private final FreezeGuard guard;
    private final DumpPhases dumps;
    /** The node's container runtime (kubelet + containerd); null where the agent has no access to it. */
    private final ContainerRuntime runtime;

    public SnapshotEngine(EngineConfig config, ImageStore store, CriuRunner criu, CudaCheckpoint cuda, Freezer freezer,
                          TargetResolver resolver, SnapshotMetrics metrics, TargetScope scope, ManifestSeal seal, ContainerRuntime runtime) {
        this.runtime = runtime;
        this.scope = java.util.Objects.requireNonNull(scope, "scope");
        this.seal = java.util.Objects.requireNonNull(seal, "seal");
        this.config = config;
        this.store = store;
        this.criu = criu;
        this.cuda = cuda;
        this.freezer = freezer;
        this.resolver = resolver;
        this.metrics = metrics;
        this.journal = new FreezeJournal(store.journalDir());
        this.guard = new FreezeGuard(store, freezer, metrics, journal, sessions);
        this.dumps = new DumpPhases(config, store, criu, cuda, metrics, journal, guard, runtime);
    }

    public ImageStore store() {
        return store;
    }

    public SnapshotMetrics metrics() {
        return metrics;
    }

    public Optional<CriuBinary> criu() {
        return Optional.ofNullable(criu).map(CriuRunner::binary);
    }

    // ---------------------------------------------------------------- recovery

    /** Replays the journal left by a previous agent process; call once before serving. */
    public List<String> recover() {
        List<String> report = new ArrayList<>(new Recovery(store, journal, cuda).run(sessions.liveIds()));
        for (String stale : freezer.removeStaleTreeCgroups()) {
            report.add("removed stale freezer cgroup " + stale + " (thawed, processes moved out)");
            LOG.info("recovery: removed stale freezer cgroup " + stale);
        }
        return report;
    }

    // ---------------------------------------------------------------- pause / resume

    public FreezeResult freeze(dev.crucible.snapshot.client.api.TargetSpec target, Long timeoutMs) {
        Session s = new Session("pause-" + UUID.randomUUID().toString().substring(0, 8), true);
        s.target = resolver.resolve(target);
        requireTargetFree(s.target);
        sessions.put(s);
        try {
            s.cgroup = freezer.cgroupFor(s.target);
            FreezeHandle h = guard.freeze(s, config.freezeTimeout(timeoutMs));
            return new FreezeResult(s.id, h.kind(), h.cgroupPath(), s.journal.frozenAt(), s.journal.deadline());
        } catch (RuntimeException e) {
            sessions.remove(s.id);
            guard.release(s, CommitAction.THAW);
            throw e;
        }
    }

    public long thaw(String freezeId) {
        Session s = sessions.get(freezeId);
        if (s == null || !s.pauseOnly) {
            throw new SessionConflictException("no pause with freezeId '" + freezeId + "' (already thawed or never frozen)");
        }
        sessions.remove(freezeId);
        return guard.release(s, CommitAction.THAW);
    }

    // ---------------------------------------------------------------- snapshot phases

    /** One-shot snapshot: prepare, dump, commit; any failure aborts (thaw + FAILED) and rethrows. */
    public Manifest snapshot(SnapshotRequest r, CommitAction action) {
        prepare(r);
        dump(r.snapshotId());
        return commit(r.snapshotId(), action);
    }

    public PrepareResult prepare(SnapshotRequest r) {
        SnapshotId id = SnapshotId.of(r.snapshotId());
        if (r.target() == null) {
            throw new IllegalArgumentException("target is required");
        }
        Path workspace = r.workspace() == null ? null : config.allowedWorkspace(r.workspace(), "workspace");
        int preDumps = r.preDumps() == null ? config.defaultPreDumps() : r.preDumps();
        if (preDumps < 0 || preDumps > 10) {
            throw new IllegalArgumentException("preDumps must be between 0 and 10, got " + preDumps);
        }
        Duration freezeTimeout = config.freezeTimeout(r.freezeTimeoutMs());
        boolean diskOnly = r.skipsMemory();
        if (diskOnly && workspace == null) {
            throw new IllegalArgumentException("workspace: a disk-only snapshot needs the workspace to archive");
        }
        if (r.runtime() != null) {
            r.runtime().validate();
            if (diskOnly) throw new IllegalArgumentException("runtime: a disk-only snapshot checkpoints no memory; give one or the other");
            if (runtime == null) throw new IllegalStateException("runtime: " + ContainerRuntime.unavailable());
        }
        ResolvedTarget target = resolver.resolve(r.target());
        requireTargetFree(target); // an out-of-scope target is refused before anything else is looked at
        // The runtime runs its own CRIU: this agent's is needed only for trees it dumps itself.
        CriuRunner runner = diskOnly || r.runtime() != null ? null : dumps.requireCriu();

        Session s = new Session(id.value(), false);
        if (!sessions.add(s)) {
            throw new SessionConflictException("snapshotId '" + id + "' is already in progress");
        }
        s.request = r;
        s.workspace = workspace;
        s.target = target;
        Manifest m = Manifest.preparing(id, r.group(), target.description());
        m.rootPid = target.root().pid();
        m.pidNamespaceRoot = ProcessTree.isPidNamespaceRoot(target.root().pid());
        m.tcpEstablished = r.tcpEstablished();
        m.diskOnly = diskOnly ? Boolean.TRUE : null;
        s.manifest = m;
        try {
            store.create(m);
        } catch (RuntimeException e) {
            sessions.remove(s.id);
            throw e;
        }
        s.phaseLock.lock();
        try {
            s.cgroup = freezer.cgroupFor(target);
            m.cgroupPath = s.cgroup == null ? null : s.cgroup.toString();
            boolean tracking = dumps.beforeFreeze(s, r, runner, preDumps, diskOnly);
            FreezeHandle h = guard.freeze(s, freezeTimeout);
            synchronized (s) {
                if (s.aborted) {
                    // The caller gave up while this prepare ran: do not leave the tree frozen for the watchdog.
                    throw new SessionConflictException("snapshot '" + s.id + "' was aborted during prepare: " + s.abortReason);
                }
            }
            m.freezer = h.kind();
            m.state = SnapshotState.FROZEN;
            guard.save(s);
            return new PrepareResult(s.id, h.kind(), h.cgroupPath(), List.copyOf(m.preDumpMs), tracking,
                    s.gpu == null ? List.of() : s.gpu.suspended(), s.journal.frozenAt(), s.journal.deadline());
        } catch (Exception e) {
            throw guard.fail(s, "prepare", e);
        } finally {
            s.phaseLock.unlock();
        }
    }

    public DumpResult dump(String snapshotId) {
        Session s = sessions.requireSnapshot(snapshotId, store);
        s.phaseLock.lock();
        try {
            s.requireState(SnapshotState.FROZEN, "dump");
            FreezeHandle frozen = s.handle;
            if (frozen == null) {
                throw new SessionConflictException("snapshot '" + s.id + "' is no longer frozen");
            }
            SnapshotId id = SnapshotId.of(s.id);
            long dumpMs;
            long workspaceMs;
            if (s.request.runtime() != null) {
                // The workspace first, while the whole group is frozen; then the runtime's checkpoint,
                // for which the container runs for a moment (the runtime pauses it itself).
                workspaceMs = dumps.archiveWorkspace(s, id);
                dumpMs = dumps.checkpointThroughRuntime(s, id);
            } else {
                dumpMs = s.manifest.diskOnly == null ? dumps.dumpProcesses(s, frozen, id) : 0;
                workspaceMs = dumps.archiveWorkspace(s, id);
            }
            s.manifest.state = SnapshotState.DUMPED;
            guard.save(s);
            return new DumpResult(s.id, dumpMs, workspaceMs, (System.nanoTime() - s.frozenAtNanos) / 1_000_000);
        } catch (Exception e) {
            throw guard.fail(s, "dump", e);
        } finally {
            s.phaseLock.unlock();
        }
    }

    public Manifest commit(String snapshotId, CommitAction action) {
        Session s = sessions.requireSnapshot(snapshotId, store);
        s.phaseLock.lock();
        try {
            s.requireState(SnapshotState.DUMPED, "commit");
            long frozenMs = guard.release(s, action);
            sessions.remove(s.id);
            Manifest m = s.manifest;
            m.freezeWindowMs = frozenMs;
            dumps.checksum(s);
            synchronized (s) {
                if (s.aborted) {
                    throw new SessionConflictException("snapshot '" + s.id + "' was aborted: " + s.abortReason);
                }
                m.state = SnapshotState.COMPLETE;
                m.completedAt = Instant.now();
                seal.seal(m);
                store.save(m);
            }
            metrics.outcome("snapshot", "complete");
            return m;
        } catch (Exception e) {
            throw guard.fail(s, "commit", e);
        } finally {
            s.phaseLock.unlock();
        }
    }

    /** Thaws (GPU resumed) and marks the snapshot FAILED. Never waits for a phase in progress. */
    public Manifest abort(String snapshotId, String reason) {
        Session s = sessions.get(snapshotId);
        if (s == null) {
            Manifest m = store.require(SnapshotId.of(snapshotId));
            if (m.state.terminal()) {
                return m;
            }
            throw new SessionConflictException("snapshot '" + snapshotId + "' is not in progress on this agent");
        }
        guard.abort(s, reason == null ? "aborted by caller" : reason);
        return s.manifest;
    }

    // ---------------------------------------------------------------- restore / store

    /** Restores a COMPLETE snapshot as a new running tree (see {@link Restorer}). */
    public RestoreResult restore(RestoreRequest r) {
        return new Restorer(store, criu, cuda, metrics, config.criuTimeout(), config::allowedWorkspace, seal, runtime).restore(r);
    }

    public List<Manifest> list() {
        return store.list();
    }

    public boolean delete(String snapshotId) {
        SnapshotId id = SnapshotId.of(snapshotId);
        if (sessions.holds(id.value())) {
            throw new SessionConflictException("snapshot '" + id + "' is in progress; abort it first");
        }
        boolean deleted = store.delete(id);
        removeCheckpointImage(id.value());
        return deleted;
    }

    /** A deleted snapshot's checkpoint image leaves the node's runtime too (GiBs otherwise); best effort. */
    private void removeCheckpointImage(String snapshotId) {
        if (runtime == null) return;
        try {
            runtime.removeImage(dev.crucible.snapshot.client.api.RuntimeCheckpoint.imageReference(snapshotId), Duration.ofMinutes(2));
        } catch (RuntimeException e) {
            LOG.warn("snapshot " + snapshotId + " deleted, but its checkpoint image stays on the node: " + e.getMessage());
        }
    }

    /** Retention over snapshots, plus old restore work dirs and empty per-tree cgroups. */
    public List<String> gc(RetentionPolicy policy) {
        List<String> deleted = new GarbageCollector(store).collect(policy, Instant.now(), sessions::holds);
        deleted.forEach(this::removeCheckpointImage);
        store.removeWorkDirsOlderThan(Instant.now().minus(policy.failedTtl()));
        freezer.removeEmptyTreeCgroups();
        return deleted;
    }

    @Override
    public void close() {
        for (Session s : sessions.all()) {
            guard.abort(s, "agent shutting down");
        }
        guard.shutdown();
        try {
            freezer.removeEmptyTreeCgroups();
        } catch (RuntimeException ignored) {
            // best effort; gc retries
        }
    }

    private void requireTargetFree(ResolvedTarget t) {
        scope.check(t); // init, the agent, and everything that is not a rollout's: refused with the reason
        sessions.requireFree(t);
    }

    /** Ids of snapshots and pauses this engine holds right now. */
    public Set<String> inFlight() {
        return sessions.ids();
    }
}
