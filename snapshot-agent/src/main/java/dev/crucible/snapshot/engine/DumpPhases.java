package dev.crucible.snapshot.engine;

import dev.crucible.snapshot.client.api.CommitAction;
import dev.crucible.snapshot.client.api.RuntimeCheckpoint;
import dev.crucible.snapshot.client.api.SnapshotRequest;
import dev.crucible.snapshot.container.CheckpointImage;
import dev.crucible.snapshot.container.ContainerRuntime;
import dev.crucible.snapshot.criu.CriuArgs;
import dev.crucible.snapshot.criu.CriuBinary;
import dev.crucible.snapshot.criu.CriuException;
import dev.crucible.snapshot.criu.CriuResult;
import dev.crucible.snapshot.criu.CriuRunner;
import dev.crucible.snapshot.criu.WorkingDirLocks;
import dev.crucible.snapshot.disk.WorkspaceArchive;
import dev.crucible.snapshot.freeze.FreezeHandle;
import dev.crucible.snapshot.freeze.FreezeJournal;
import dev.crucible.snapshot.freeze.JournalEntry;
import dev.crucible.snapshot.gpu.CudaCheckpoint;
import dev.crucible.snapshot.gpu.GpuProcesses;
import dev.crucible.snapshot.gpu.GpuSuspension;
import dev.crucible.snapshot.metrics.SnapshotMetrics;
import dev.crucible.snapshot.store.DirectoryDigests;
import dev.crucible.snapshot.store.ImageStore;
import dev.crucible.snapshot.store.PageCache;
import dev.crucible.snapshot.client.store.Manifest;
import dev.crucible.snapshot.client.store.SnapshotId;
import dev.crucible.snapshot.store.SnapshotVerification;
import dev.crucible.snapshot.target.ProcFs;
import dev.crucible.snapshot.target.ProcessRef;
import dev.crucible.snapshot.target.ResolvedTarget;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.slf4j.LoggerFactory;

/**
 * What the snapshot phases write: before the freeze, GPU suspension and iterative CRIU pre-dumps
 * (the target still runs); while frozen, the final CRIU dump into {@code images/final} and the
 * workspace archive; at commit, the checksums. The engine decides when each runs; this class knows
 * how, and records the timings in the session's manifest.
 */
final class DumpPhases {

    private static final Set<String> NOT_CHECKSUMMED = SnapshotVerification.NOT_CHECKSUMMED;

    private final EngineConfig config;
    private final ImageStore store;
    /** Null when no CRIU binary was found: disk-only snapshots and pauses still work. */
    private final CriuRunner criu;
    private final CudaCheckpoint cuda;
    private final SnapshotMetrics metrics;
    private final FreezeJournal journal;
    private final FreezeGuard guard;
    private final ContainerRuntime runtime;

    DumpPhases(EngineConfig config, ImageStore store, CriuRunner criu, CudaCheckpoint cuda, SnapshotMetrics metrics,
               FreezeJournal journal, FreezeGuard guard, ContainerRuntime runtime) {
        this.runtime = runtime;
        this.config = config;
        this.store = store;
        this.criu = criu;
        this.cuda = cuda;
        this.metrics = metrics;
        this.journal = journal;
        this.guard = guard;
    }

    /**
     * Everything prepare does before the freeze: suspends the tree's GPU state (unless disk-only),
     * then runs up to {@code preDumps} pre-dumps when the kernel tracks dirty memory. Returns
     * whether it does (the final dump then copies only what changed since the last pre-dump).
     * {@code runner} null: the container runtime takes the memory (no pre-dumps of ours), but the GPU
     * state is still moved to host memory first, where the runtime's CRIU finds it.
     */
    boolean beforeFreeze(Session s, SnapshotRequest r, CriuRunner runner, int preDumps, boolean diskOnly) throws Exception {
        Manifest m = s.manifest;
        SnapshotId id = SnapshotId.of(s.id);
        if (!diskOnly) {
            suspendGpu(s, r);
        }
        boolean tracking = !diskOnly && runner != null && runner.binary().memoryTracking();
        m.memoryTracking = tracking;
        if (diskOnly || runner == null) {
            preDumps = 0;
        } else if (!tracking && preDumps > 0) {
            m.reason = "kernel lacks soft-dirty tracking (CONFIG_MEM_SOFT_DIRTY): no pre-dumps, the final dump copies all memory while frozen";
            preDumps = 0;
        }
        for (int i = 1; i <= preDumps; i++) {
            String dir = "images/pre-" + i;
            Path images = store.inSnapshot(id, dir);
            Files.createDirectories(images);
            List<String> args = CriuArgs.preDump(s.target.root().pid(), images, s.lastImages == null ? null : "../" + last(s.lastImages),
                    dumpOptions(r, true));
            if (s.cgroup != null) {
                args = new ArrayList<>(args);
                args.addAll(List.of("--freeze-cgroup", s.cgroup.toString()));
            }
            args = withExtra(args);
            CriuResult res;
            try (AutoCloseable cwd = WorkingDirLocks.lock(pids(s.target))) {
                res = runner.run("pre-dump", args, logDir(id), "pre-dump-" + i + ".log", config.criuTimeout(), null);
            }
            m.preDumpMs.add(res.millis());
            metrics.phase("pre_dump", Duration.ofNanos(res.durationNanos()));
            s.lastImages = dir;
        }
        m.preDumps = preDumps;
        return tracking;
    }

    /** The final CRIU dump of a frozen tree into images/final; returns its milliseconds. */
    long dumpProcesses(Session s, FreezeHandle frozen, SnapshotId id) throws Exception {
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
                guard.release(s, CommitAction.THAW);
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

    /**
     * The container's memory through its runtime: the kubelet has containerd checkpoint it (runc pauses
     * it, CRIU dumps it, it runs on). The runtime refuses a container it finds frozen, so the agent's
     * freeze is lifted for the call and put back when it returns ({@link FreezeGuard#unfrozen}); the time the
     * container ran outside either freeze is recorded. The archive becomes a checkpoint image (OCI
     * layout) under {@code checkpoint/}, checksummed and sealed with the rest at commit.
     */
    long checkpointThroughRuntime(Session s, SnapshotId id) throws Exception {
        RuntimeCheckpoint c = s.request.runtime();
        long[] callNanos = new long[1];
        Path archive = guard.unfrozen(s, () -> {
            long c0 = System.nanoTime();
            try {
                return runtime.checkpoint(c, config.criuTimeout());
            } finally {
                callNanos[0] = System.nanoTime() - c0;
            }
        });
        try {
            // moved, not copied, into the store (same file system as the kubelet's folder, or one copy)
            Path staged = store.inSnapshot(id, "checkpoint.tar");
            moveOrCopy(archive, staged);
            CheckpointImage image = CheckpointImage.build(staged, c.container(), RuntimeCheckpoint.imageReference(s.id),
                    java.util.Map.of("crucible.dev/snapshot", s.id, "org.criu.checkpoint.pod.name", c.pod(),
                            "org.criu.checkpoint.pod.namespace", c.namespace()), store.inSnapshot(id, "checkpoint"));
            Manifest m = s.manifest;
            m.checkpointImage = image.reference();
            m.checkpointDigest = image.indexDigest();
            m.checkpointBytes = image.archiveBytes();
            m.checkpointMs = callNanos[0] / 1_000_000;
            m.runtimeGapMs = s.liftedNanos / 1_000_000;
            m.dumpMs = m.checkpointMs;
            metrics.phase("runtime_checkpoint", Duration.ofNanos(callNanos[0]));
            return m.checkpointMs;
        } finally {
            Files.deleteIfExists(archive);
        }
    }

    private static void moveOrCopy(Path from, Path to) throws java.io.IOException {
        try {
            Files.move(from, to, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (java.nio.file.AtomicMoveNotSupportedException e) {
            Files.copy(from, to);
        }
    }

    /** Archives the session's workspace (if it names one) into workspace.tar; returns its milliseconds. */
    long archiveWorkspace(Session s, SnapshotId id) {
        if (s.workspace == null) {
            return 0;
        }
        WorkspaceArchive.Archive a = WorkspaceArchive.capture(s.workspace, store.inSnapshot(id, "workspace.tar"));
        s.manifest.workspaceBytes = a.bytes();
        s.manifest.workspaceSha256 = a.sha256();
        s.manifest.workspaceMs = a.millis();
        metrics.phase("workspace", Duration.ofMillis(a.millis()));
        for (String line : a.leftOut()) LoggerFactory.getLogger(DumpPhases.class).warn("snapshot " + id + ": workspace folder left out: " + line);
        return a.millis();
    }

    /** Commit's part, once the tree runs again: a sha256 per file (sealed into the manifest) and the sizes. */
    void checksum(Session s) {
        Manifest m = s.manifest;
        long t0 = System.nanoTime();
        Path dir = store.snapshotDir(SnapshotId.of(s.id));
        m.files = DirectoryDigests.compute(dir, NOT_CHECKSUMMED);
        // written and just read in full, then not again until a restore: out of the agent's memory
        // cgroup, or its working set grows by each snapshot's size (issue 41, soak finding)
        try {
            PageCache.drop(dir);
        } catch (RuntimeException e) {
            LoggerFactory.getLogger(DumpPhases.class).warn("snapshot " + s.id
                    + ": its files stay in the page cache (counted against this agent's memory limit): " + e.getMessage());
        }
        m.imageBytes = (Files.isDirectory(dir.resolve("images")) ? ImageStore.sizeOf(dir.resolve("images")) : 0L)
                + (Files.isDirectory(dir.resolve("checkpoint")) ? ImageStore.sizeOf(dir.resolve("checkpoint")) : 0L);
        metrics.phase("checksum", Duration.ofNanos(System.nanoTime() - t0));
        metrics.bytes("images", m.imageBytes);
        if (m.workspaceBytes != null) {
            metrics.bytes("workspace", m.workspaceBytes);
        }
    }

    CriuRunner requireCriu() {
        if (criu == null) {
            throw new CriuException(CriuBinary.MISSING);
        }
        return criu;
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
        s.journal = new JournalEntry(s.id, s.id, FreezeGuard.plannedHandle(s), gpuPids, FreezeGuard.SELF.pid(), FreezeGuard.SELF.startTime(), now, now, null,
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

    private Path logDir(SnapshotId id) {
        return store.inSnapshot(id, ImageStore.LOGS);
    }

    private static List<Long> pids(ResolvedTarget t) {
        return t.processes().stream().map(ProcessRef::pid).toList();
    }

    private static String last(String relative) {
        return relative.substring(relative.lastIndexOf('/') + 1);
    }
}
