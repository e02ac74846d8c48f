package dev.crucible.snapshot.engine;

import dev.crucible.snapshot.criu.CriuArgs;
import dev.crucible.snapshot.criu.CriuBinary;
import dev.crucible.snapshot.criu.CriuException;
import dev.crucible.snapshot.criu.CriuResult;
import dev.crucible.snapshot.criu.CriuRunner;
import dev.crucible.snapshot.criu.WorkingDirLocks;
import dev.crucible.snapshot.disk.WorkspaceArchive;
import dev.crucible.snapshot.freeze.FreezeHandle;
import dev.crucible.snapshot.freeze.FreezeJournal;
import dev.crucible.snapshot.freeze.Freezer;
import dev.crucible.snapshot.freeze.JournalEntry;
import dev.crucible.snapshot.freeze.Signals;
import dev.crucible.snapshot.gpu.CudaCheckpoint;
import dev.crucible.snapshot.gpu.GpuProcesses;
import dev.crucible.snapshot.gpu.GpuSuspension;
import dev.crucible.snapshot.metrics.SnapshotMetrics;
import dev.crucible.snapshot.store.ContainedPaths;
import dev.crucible.snapshot.store.DirectoryDigests;
import dev.crucible.snapshot.store.GarbageCollector;
import dev.crucible.snapshot.store.ImageStore;
import dev.crucible.snapshot.store.Manifest;
import dev.crucible.snapshot.store.ManifestSeal;
import dev.crucible.snapshot.store.RetentionPolicy;
import dev.crucible.snapshot.store.SnapshotId;
import dev.crucible.snapshot.store.SnapshotState;
import dev.crucible.snapshot.target.ProcFs;
import dev.crucible.snapshot.target.ProcessRef;
import dev.crucible.snapshot.target.ProcessTree;
import dev.crucible.snapshot.target.ResolvedTarget;
import dev.crucible.snapshot.target.TargetResolver;
import dev.crucible.snapshot.target.TargetScope;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
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
 */
public final class SnapshotEngine implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SnapshotEngine.class);
    private static final Set<String> NOT_CHECKSUMMED = dev.crucible.snapshot.store.SnapshotVerification.NOT_CHECKSUMMED;

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
    private final Map<String, Session> sessions = new ConcurrentHashMap<>();
    private final ScheduledExecutorService watchdog;

    public SnapshotEngine(EngineConfig config, ImageStore store, CriuRunner criu, CudaCheckpoint cuda, Freezer freezer,
                          TargetResolver resolver, SnapshotMetrics metrics, TargetScope scope, ManifestSeal seal) {
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
        this.watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "crucible-freeze-watchdog");
            t.setDaemon(true);
            return t;
        });
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
        List<String> report = new ArrayList<>(new Recovery(store, journal, cuda).run(sessions.keySet()));
        for (String stale : freezer.removeStaleTreeCgroups()) {
            report.add("removed stale freezer cgroup " + stale + " (thawed, processes moved out)");
            LOG.info("recovery: removed stale freezer cgroup " + stale);
        }
        return report;
    }

    // ---------------------------------------------------------------- pause / resume

    public FreezeResult freeze(dev.crucible.snapshot.target.TargetSpec target, Long timeoutMs) {
        Session s = new Session("pause-" + UUID.randomUUID().toString().substring(0, 8), true);
        s.target = resolver.resolve(target);
        requireTargetFree(s.target);
        sessions.put(s.id, s);
        try {
            s.cgroup = freezer.cgroupFor(s.target);
            FreezeHandle h = freezeNow(s, freezeTimeout(timeoutMs));
            return new FreezeResult(s.id, h.kind(), h.cgroupPath(), s.journal.frozenAt(), s.journal.deadline());
        } catch (RuntimeException e) {
            sessions.remove(s.id);
            release(s, CommitAction.THAW);
            throw e;
        }
    }

    public long thaw(String freezeId) {
        Session s = sessions.get(freezeId);
        if (s == null || !s.pauseOnly) {
            throw new SessionConflictException("no pause with freezeId '" + freezeId + "' (already thawed or never frozen)");
        }
        sessions.remove(freezeId);
        long frozenMs = release(s, CommitAction.THAW);
        return frozenMs;
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
        Path workspace = r.workspace() == null ? null : allowedWorkspace(r.workspace(), "workspace");
        int preDumps = r.preDumps() == null ? config.defaultPreDumps() : r.preDumps();
        if (preDumps < 0 || preDumps > 10) {
            throw new IllegalArgumentException("preDumps must be between 0 and 10, got " + preDumps);
        }
        Duration freezeTimeout = freezeTimeout(r.freezeTimeoutMs());
        boolean diskOnly = r.skipsMemory();
        if (diskOnly && workspace == null) {
            throw new IllegalArgumentException("workspace: a disk-only snapshot needs the workspace to archive");
        }
        ResolvedTarget target = resolver.resolve(r.target());
        requireTargetFree(target); // an out-of-scope target is refused before anything else is looked at
        CriuRunner runner = diskOnly ? null : requireCriu();

        Session s = new Session(id.value(), false);
        if (sessions.putIfAbsent(s.id, s) != null) {
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
            if (!diskOnly) {
                suspendGpu(s, r);
            }
            boolean tracking = !diskOnly && runner.binary().memoryTracking();
            m.memoryTracking = tracking;
            if (diskOnly) {
                preDumps = 0;
            } else if (!tracking && preDumps > 0) {
                m.reason = "kernel lacks soft-dirty tracking (CONFIG_MEM_SOFT_DIRTY): no pre-dumps, the final dump copies all memory while frozen";
                preDumps = 0;
            }
            for (int i = 1; i <= preDumps; i++) {
                String dir = "images/pre-" + i;
                Path images = store.inSnapshot(id, dir);
                Files.createDirectories(images);
                List<String> args = CriuArgs.preDump(target.root().pid(), images, s.lastImages == null ? null : "../" + last(s.lastImages),
                        dumpOptions(r, true));
                if (s.cgroup != null) {
                    args = new ArrayList<>(args);
                    args.addAll(List.of("--freeze-cgroup", s.cgroup.toString()));
                }
                args = withExtra(args);
                CriuResult res;
                try (AutoCloseable cwd = WorkingDirLocks.lock(pids(target))) {
                    res = runner.run("pre-dump", args, logDir(id), "pre-dump-" + i + ".log", config.criuTimeout(), null);
                }
                m.preDumpMs.add(res.millis());
                metrics.phase("pre_dump", Duration.ofNanos(res.durationNanos()));
                s.lastImages = dir;
            }
            m.preDumps = preDumps;
            FreezeHandle h = freezeNow(s, freezeTimeout);
            synchronized (s) {
                if (s.aborted) {
                    // The caller gave up while this prepare ran: do not leave the tree frozen for the watchdog.
                    throw new SessionConflictException("snapshot '" + s.id + "' was aborted during prepare: " + s.abortReason);
                }
            }
            m.freezer = h.kind();
            m.state = SnapshotState.FROZEN;
            saveManifest(s);
            return new PrepareResult(s.id, h.kind(), h.cgroupPath(), List.copyOf(m.preDumpMs), tracking,
                    s.gpu == null ? List.of() : s.gpu.suspended(), s.journal.frozenAt(), s.journal.deadline());
        } catch (Exception e) {
            throw fail(s, "prepare", e);
        } finally {
            s.phaseLock.unlock();
        }
    }

    public DumpResult dump(String snapshotId) {
        Session s = requireSession(snapshotId);
        s.phaseLock.lock();
        try {
            requireState(s, SnapshotState.FROZEN, "dump");
            FreezeHandle frozen = s.handle;
            if (frozen == null) {
                throw new SessionConflictException("snapshot '" + s.id + "' is no longer frozen");
            }
            SnapshotId id = SnapshotId.of(s.id);
            long dumpMs = s.manifest.diskOnly == null ? dumpProcesses(s, frozen, id) : 0;
            long workspaceMs = 0;
            if (s.workspace != null) {
                WorkspaceArchive.Archive a = WorkspaceArchive.capture(s.workspace, store.inSnapshot(id, "workspace.tar"));
                s.manifest.workspaceBytes = a.bytes();
                s.manifest.workspaceSha256 = a.sha256();
                s.manifest.workspaceMs = a.millis();
                workspaceMs = a.millis();
                metrics.phase("workspace", Duration.ofMillis(a.millis()));
            }
            s.manifest.state = SnapshotState.DUMPED;
            saveManifest(s);
            return new DumpResult(s.id, dumpMs, workspaceMs, (System.nanoTime() - s.frozenAtNanos) / 1_000_000);
        } catch (SessionConflictException e) {
            throw fail(s, "dump", e);
        } catch (Exception e) {
            throw fail(s, "dump", e);
        } finally {
            s.phaseLock.unlock();
        }
    }

    /** The final CRIU dump of a frozen tree into images/final; returns its milliseconds. */
    private long dumpProcesses(Session s, FreezeHandle frozen, SnapshotId id) throws Exception {
        Path images = store.inSnapshot(id, "images/final");
        Files.createDirectories(images);
        List<String> args = CriuArgs.dump(s.target.root().pid(), images,
                s.lastImages == null ? null : "../" + last(s.lastImages), dumpOptions(s.request, s.manifest.preDumps > 0),
                frozen.cgroup() ? s.cgroup : null, true);
        args = withExtra(args);
        synchronized (s) {
            if (s.aborted) {
                throw new SessionConflictException("snapshot '" + s.id + "' was aborted: " + s.abortReason);
            }
            s.criuRunning = true;
        }
        CriuResult res;
        try (AutoCloseable cwd = WorkingDirLocks.lock(pids(s.target))) {
            res = requireCriu().run("dump", args, logDir(id), "dump.log", config.criuTimeout(), criuProcess -> {
                s.journal = s.journal.withCriu(criuProcess, "dump");
                journal.record(s.journal);
            });
        } finally {
            boolean abortedMeanwhile;
            synchronized (s) {
                s.criuRunning = false;
                abortedMeanwhile = s.aborted;
            }
            if (abortedMeanwhile) {
                // CRIU re-freezes the cgroup it found frozen; the abort already thawed once, so thaw again.
                release(s, CommitAction.THAW);
            }
        }
        synchronized (s) {
            if (s.aborted) {
                throw new SessionConflictException("snapshot '" + s.id + "' was aborted during the dump: " + s.abortReason);
            }
            s.journal = s.journal.withCriu(null, "dumped");
            journal.record(s.journal);
        }
        metrics.phase("dump", Duration.ofNanos(res.durationNanos()));
        s.manifest.dumpMs = res.millis();
        s.manifest.imagesDir = "images/final";
        return res.millis();
    }

    public Manifest commit(String snapshotId, CommitAction action) {
        Session s = requireSession(snapshotId);
        s.phaseLock.lock();
        try {
            requireState(s, SnapshotState.DUMPED, "commit");
            long frozenMs = release(s, action);
            sessions.remove(s.id);
            Manifest m = s.manifest;
            m.freezeWindowMs = frozenMs;
            long t0 = System.nanoTime();
            Path dir = store.snapshotDir(SnapshotId.of(s.id));
            m.files = DirectoryDigests.compute(dir, NOT_CHECKSUMMED);
            m.imageBytes = Files.isDirectory(dir.resolve("images")) ? ImageStore.sizeOf(dir.resolve("images")) : 0L;
            metrics.phase("checksum", Duration.ofNanos(System.nanoTime() - t0));
            metrics.bytes("images", m.imageBytes);
            if (m.workspaceBytes != null) {
                metrics.bytes("workspace", m.workspaceBytes);
            }
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
            throw fail(s, "commit", e);
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
        abortSession(s, reason == null ? "aborted by caller" : reason);
        return s.manifest;
    }

    // ---------------------------------------------------------------- restore / store

    /** Restores a COMPLETE snapshot as a new running tree (see {@link Restorer}). */
    public RestoreResult restore(RestoreRequest r) {
        return new Restorer(store, criu, cuda, metrics, config.criuTimeout(), this::allowedWorkspace, seal).restore(r);
    }

    public List<Manifest> list() {
        return store.list();
    }

    public boolean delete(String snapshotId) {
        SnapshotId id = SnapshotId.of(snapshotId);
        if (sessions.containsKey(id.value())) {
            throw new SessionConflictException("snapshot '" + id + "' is in progress; abort it first");
        }
        return store.delete(id);
    }

    /** Retention over snapshots, plus old restore work dirs and empty per-tree cgroups. */
    public List<String> gc(RetentionPolicy policy) {
        List<String> deleted = new GarbageCollector(store).collect(policy, Instant.now(), sessions::containsKey);
        store.removeWorkDirsOlderThan(Instant.now().minus(policy.failedTtl()));
        freezer.removeEmptyTreeCgroups();
        return deleted;
    }

    @Override
    public void close() {
        for (Session s : List.copyOf(sessions.values())) {
            abortSession(s, "agent shutting down");
        }
        watchdog.shutdownNow();
        try {
            freezer.removeEmptyTreeCgroups();
        } catch (RuntimeException ignored) {
            // best effort; gc retries
        }
    }

    // ---------------------------------------------------------------- internals

    private FreezeHandle freezeNow(Session s, Duration timeout) {
        Instant now = Instant.now();
        s.journal = new JournalEntry(s.id, s.pauseOnly ? null : s.id, plannedHandle(s), s.gpu == null ? List.of() : s.gpu.suspended(),
                ProcessHandle.current().pid(), now, now.plus(timeout), null, "frozen");
        journal.record(s.journal); // durable before the freeze: a crash after it is always undone
        s.frozenAtNanos = System.nanoTime();
        try {
            s.handle = freezer.freeze(s.target, s.cgroup, Duration.ofSeconds(10));
        } catch (RuntimeException e) {
            journal.remove(s.id);
            throw e;
        }
        metrics.frozenDelta(1);
        boolean abortedMeanwhile;
        synchronized (s) {
            abortedMeanwhile = s.aborted;
        }
        if (abortedMeanwhile) { // an abort (or the caller's deadline) raced with the freeze: undo it
            release(s, CommitAction.THAW);
            throw new SessionConflictException("'" + s.id + "' was aborted while freezing: " + s.abortReason);
        }
        FreezeHandle h = s.handle;
        s.watchdog = watchdog.schedule(() -> abortSession(s, "freeze deadline of " + timeout.toMillis()
                + " ms exceeded; thawed by the watchdog"), timeout.toMillis(), TimeUnit.MILLISECONDS);
        return h;
    }

    /**
     * Undoes whatever the session holds, each part at most once: thaws (or stops) the tree if it is
     * frozen, resumes suspended GPU state, cancels the watchdog, drops the journal entry. Safe to
     * call from any thread, any number of times, in any phase. While CRIU still holds the tree it
     * only thaws (CRIU re-freezes on exit) and leaves the rest to the dump thread, which calls again.
     * Returns how long the tree was frozen.
     */
    private long release(Session s, CommitAction action) {
        FreezeHandle h;
        synchronized (s) {
            if (s.criuRunning) {
                if (s.handle != null) {
                    Freezer.thaw(s.handle);
                }
                return (System.nanoTime() - s.frozenAtNanos) / 1_000_000;
            }
            h = s.handle;
            s.handle = null; // this call owns the thaw
        }
        long frozenMs = 0;
        try {
            if (h != null) {
                if (action == CommitAction.STOP) {
                    stop(h);
                }
                Freezer.thaw(h);
                frozenMs = (System.nanoTime() - s.frozenAtNanos) / 1_000_000;
                metrics.frozenDelta(-1);
                metrics.freezeWindow(Duration.ofMillis(frozenMs));
            }
        } finally {
            try {
                if (s.gpu != null && action == CommitAction.THAW && !s.gpu.suspended().isEmpty()) {
                    long t0 = System.nanoTime();
                    s.gpu.resumeAll();
                    metrics.phase("gpu_resume", Duration.ofNanos(System.nanoTime() - t0));
                }
            } finally {
                if (s.watchdog != null) {
                    s.watchdog.cancel(false);
                }
                if (s.journal != null) {
                    journal.remove(s.journal.name());
                }
                releaseAdoptedCgroup(s);
            }
        }
        return frozenMs;
    }

    /** A cgroup made for a local tree lives only as long as its freeze: processes go back, the cgroup goes. */
    private void releaseAdoptedCgroup(Session s) {
        Path cg;
        synchronized (s) {
            cg = s.target != null && freezer.adopted(s.target, s.cgroup) ? s.cgroup : null;
            if (cg == null || s.cgroupReleased) {
                return;
            }
            s.cgroupReleased = true;
        }
        try {
            freezer.releaseAdopted(cg);
        } catch (RuntimeException e) {
            LOG.warn("cannot remove freezer cgroup " + cg + " of " + s.id, e);
        }
    }

    private static void stop(FreezeHandle h) {
        if (h.cgroup() && Files.exists(Path.of(h.cgroupPath(), "cgroup.kill"))) {
            try {
                Files.writeString(Path.of(h.cgroupPath(), "cgroup.kill"), "1");
                return;
            } catch (IOException e) {
                LOG.warn("cgroup.kill failed, falling back to SIGKILL: " + e.getMessage());
            }
        }
        Signals.send("KILL", h.processes().stream().filter(ProcessRef::alive).map(ProcessRef::pid).toList());
    }

    private void abortSession(Session s, String reason) {
        synchronized (s) {
            if (s.aborted || s.manifest != null && s.manifest.state == SnapshotState.COMPLETE) {
                return;
            }
            s.aborted = true;
            s.abortReason = reason;
        }
        LOG.warn("aborting " + s.id + ": " + reason);
        try {
            release(s, CommitAction.THAW);
        } catch (RuntimeException e) {
            LOG.error("thaw during abort of " + s.id + " failed", e);
        }
        sessions.remove(s.id, s);
        if (s.manifest != null) {
            s.manifest.state = SnapshotState.FAILED;
            s.manifest.reason = reason;
            s.manifest.completedAt = Instant.now();
            try {
                saveManifest(s);
            } catch (RuntimeException e) {
                LOG.error("cannot mark " + s.id + " FAILED", e);
            }
            metrics.outcome("snapshot", "failed");
        }
    }

    private RuntimeException fail(Session s, String phase, Exception e) {
        String reason = phase + " failed: " + e.getMessage();
        boolean wasAborted;
        synchronized (s) {
            wasAborted = s.aborted;
        }
        if (!wasAborted) {
            abortSession(s, reason);
        } else {
            reason = s.abortReason;
            release(s, CommitAction.THAW); // whatever this phase acquired after the abort (GPU, freeze) goes too
        }
        return new SnapshotFailedException("snapshot '" + s.id + "' " + reason, e);
    }

    private void suspendGpu(Session s, SnapshotRequest r) {
        List<Long> gpuPids = GpuProcesses.detect(s.target.processes().stream().map(ProcessRef::pid).toList());
        if (gpuPids.isEmpty()) {
            return;
        }
        if (cuda == null) {
            throw new IllegalStateException("target has GPU processes " + gpuPids + " but " + CudaCheckpoint.MISSING);
        }
        long t0 = System.nanoTime();
        // journalled first: if the agent dies with CUDA locked, recovery resumes these pids
        Instant now = Instant.now();
        s.journal = new JournalEntry(s.id, s.id, plannedHandle(s), gpuPids, ProcessHandle.current().pid(), now, now, null,
                "gpu-suspend");
        journal.record(s.journal);
        s.gpu = new GpuSuspension(cuda);
        s.gpu.suspendAll(gpuPids, r.gpuLockTimeoutMs() == null ? 10_000 : r.gpuLockTimeoutMs());
        for (long pid : gpuPids) {
            List<Long> ns = ProcFs.nsPids(pid);
            s.manifest.gpuNamespacePids.add(ns.get(ns.size() - 1));
        }
        metrics.phase("gpu_suspend", Duration.ofNanos(System.nanoTime() - t0));
    }

    private CriuArgs.DumpOptions dumpOptions(SnapshotRequest r, boolean trackMem) {
        boolean tracking = trackMem && criu.binary().memoryTracking();
        return new CriuArgs.DumpOptions(tracking, r.tcpEstablished(), r.shellJob(), false, false);
    }

    private List<String> withExtra(List<String> args) {
        if (config.extraDumpArgs().isEmpty()) {
            return args;
        }
        List<String> a = new ArrayList<>(args);
        a.addAll(config.extraDumpArgs());
        return a;
    }

    private CriuRunner requireCriu() {
        if (criu == null) {
            throw new CriuException(CriuBinary.MISSING);
        }
        return criu;
    }

    Path allowedWorkspace(String given, String field) {
        Path p = Path.of(given);
        if (!p.isAbsolute()) {
            throw new IllegalArgumentException(field + " must be an absolute path, got '" + given + "'");
        }
        for (Path root : config.workspaceRoots()) {
            try {
                return ContainedPaths.requireInside(root, p, field);
            } catch (SecurityException ignored) {
                // try the next root
            }
        }
        throw new dev.crucible.snapshot.store.PathEscapeException(field, given,
                config.workspaceRoots().isEmpty() ? Path.of("<no workspace roots configured>") : config.workspaceRoots().get(0));
    }

    private Duration freezeTimeout(Long ms) {
        if (ms == null) {
            return config.defaultFreezeTimeout();
        }
        if (ms <= 0 || ms > config.maxFreezeTimeout().toMillis()) {
            throw new IllegalArgumentException("freezeTimeoutMs must be between 1 and " + config.maxFreezeTimeout().toMillis());
        }
        return Duration.ofMillis(ms);
    }

    private void requireTargetFree(ResolvedTarget t) {
        scope.check(t); // init, the agent, and everything that is not a rollout's: refused with the reason
        for (Session other : sessions.values()) {
            if (other.target != null && other.target.root().equals(t.root())) {
                throw new SessionConflictException("target " + t.description() + " is already held by '" + other.id + "'");
            }
        }
    }

    private Session requireSession(String snapshotId) {
        SnapshotId id = SnapshotId.of(snapshotId);
        Session s = sessions.get(id.value());
        if (s == null || s.pauseOnly) {
            Optional<Manifest> m = store.find(id);
            throw new SessionConflictException("snapshot '" + id + "' is not in progress on this agent"
                    + m.map(x -> " (it is " + x.state + (x.reason == null ? "" : ": " + x.reason) + ")").orElse(""));
        }
        return s;
    }

    private static void requireState(Session s, SnapshotState want, String phase) {
        synchronized (s) {
            if (s.aborted) {
                throw new SessionConflictException("snapshot '" + s.id + "' was aborted: " + s.abortReason);
            }
        }
        if (s.manifest.state != want) {
            throw new SessionConflictException(phase + " needs snapshot '" + s.id + "' to be " + want + ", it is " + s.manifest.state);
        }
    }

    private void saveManifest(Session s) {
        synchronized (s) {
            store.save(s.manifest);
        }
    }

    private Path logDir(SnapshotId id) {
        return store.inSnapshot(id, ImageStore.LOGS);
    }

    /** How the target will be (or is) frozen, for the journal: thawing an unfrozen target is harmless. */
    private static FreezeHandle plannedHandle(Session s) {
        return new FreezeHandle(s.cgroup != null ? FreezeHandle.CGROUP_V2 : FreezeHandle.SIGSTOP,
                s.cgroup == null ? null : s.cgroup.toString(), s.target.processes());
    }

    private static List<Long> pids(ResolvedTarget t) {
        return t.processes().stream().map(ProcessRef::pid).toList();
    }

    private static String last(String relative) {
        return relative.substring(relative.lastIndexOf('/') + 1);
    }

    /** Ids of snapshots and pauses this engine holds right now. */
    public Set<String> inFlight() {
        return Set.copyOf(sessions.keySet());
    }
}
