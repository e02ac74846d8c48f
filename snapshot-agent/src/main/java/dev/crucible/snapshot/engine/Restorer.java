package dev.crucible.snapshot.engine;

import dev.crucible.snapshot.client.api.RestoreRequest;
import dev.crucible.snapshot.client.api.RestoreResult;
import dev.crucible.snapshot.container.CheckpointImage;
import dev.crucible.snapshot.container.ContainerRuntime;
import dev.crucible.snapshot.container.RestoredGpuResume;
import dev.crucible.snapshot.criu.CriuArgs;
import dev.crucible.snapshot.criu.CriuException;
import dev.crucible.snapshot.criu.CriuResult;
import dev.crucible.snapshot.criu.CriuRunner;
import dev.crucible.snapshot.disk.WorkspaceArchive;
import dev.crucible.snapshot.client.api.WorkspacePatch;
import dev.crucible.snapshot.freeze.FreezeHandle;
import dev.crucible.snapshot.freeze.Signals;
import dev.crucible.snapshot.gpu.CudaCheckpoint;
import dev.crucible.snapshot.metrics.SnapshotMetrics;
import dev.crucible.snapshot.store.ImageStore;
import dev.crucible.snapshot.client.store.Manifest;
import dev.crucible.snapshot.store.ManifestSeal;
import dev.crucible.snapshot.store.SnapshotVerification;
import dev.crucible.snapshot.client.store.SnapshotId;
import dev.crucible.snapshot.client.store.SnapshotState;
import dev.crucible.snapshot.target.ProcFs;
import dev.crucible.snapshot.target.ProcessRef;
import dev.crucible.snapshot.target.ProcessTree;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;

/**
 * Restore of a COMPLETE snapshot as a new, independent running tree (a branch): verify every
 * file's sha256, extract the workspace (before CRIU, which reopens files), {@code criu restore -d}
 * with its work dir outside the images (so restores can run side by side and checksums stay
 * valid), then undo what the freeze left in the images: SIGCONT for SIGSTOP-frozen trees, CUDA
 * restore + unlock for GPU tasks (matched by their namespace pid in the new tree).
 */
final class Restorer {

    private static final AtomicLong COUNTER = new AtomicLong();

    private final ImageStore store;
    private final CriuRunner runner;
    private final CudaCheckpoint cuda;
    private final SnapshotMetrics metrics;
    private final Duration criuTimeout;
    private final BiFunction<String, String, Path> workspaces;
    private final ManifestSeal seal;
    private final ContainerRuntime runtime;

    /** @param workspaces checks a caller-named directory against the allowed workspace roots */
    Restorer(ImageStore store, CriuRunner runner, CudaCheckpoint cuda, SnapshotMetrics metrics, Duration criuTimeout,
             BiFunction<String, String, Path> workspaces, ManifestSeal seal, ContainerRuntime runtime) {
        this.runtime = runtime;
        this.seal = seal;
        this.store = store;
        this.runner = runner;
        this.cuda = cuda;
        this.metrics = metrics;
        this.criuTimeout = criuTimeout;
        this.workspaces = workspaces;
    }

    RestoreResult restore(RestoreRequest r) {
        SnapshotId id = SnapshotId.of(r.snapshotId());
        Manifest m = store.require(id);
        if (m.state != SnapshotState.COMPLETE) {
            throw new SessionConflictException("snapshot '" + id + "' is " + m.state
                    + (m.reason == null ? "" : " (" + m.reason + ")") + "; only COMPLETE snapshots are restored");
        }
        Path dir = store.snapshotDir(id);
        // Always verified (a request's verify:false is ignored): the seal proves the sums are the
        // agent's, the sums prove the files, and no unlisted file may sit among the images.
        long verifyMs = SnapshotVerification.verify(dir, m, id, seal);
        long importMs = -1;
        String gpuPod = null;
        if (m.checkpointImage != null && !m.gpuNamespacePids.isEmpty()) {
            // checked before anything is written: the branch pod must not start with its GPU state left checkpointed
            gpuPod = r.workspaceOut() == null ? null : RestoredGpuResume.podUidOf(r.workspaceOut());
            if (gpuPod == null || cuda == null) {
                throw new IllegalArgumentException("snapshot '" + id + "' holds CUDA state: " + (cuda == null ? CudaCheckpoint.MISSING
                        : "workspaceOut must be the branch pod's workspace (under kubelet's pods folder) to find its processes"));
            }
        }
        if (m.checkpointImage != null) {
            // The runtime restores the processes when it creates a container from the image: imported
            // here (verified above with every other file) before the workspace (and its marker) appears,
            // so the branch pod's container, which waits for that marker, finds its image.
            if (runtime == null) throw new IllegalStateException("snapshot '" + id + "' holds a runtime checkpoint, but " + ContainerRuntime.unavailable());
            long t0 = System.nanoTime();
            runtime.importImage(new CheckpointImage(dir.resolve("checkpoint"), m.checkpointImage, null,
                    m.checkpointBytes == null ? 0 : m.checkpointBytes, m.checkpointDigest), criuTimeout);
            importMs = (System.nanoTime() - t0) / 1_000_000;
            metrics.phase("image_import", Duration.ofNanos(System.nanoTime() - t0));
        }
        Path workspaceOut = null;
        if (r.workspaceOut() != null) {
            if (m.workspaceSha256 == null) {
                throw new IllegalArgumentException("workspaceOut: snapshot '" + id + "' has no workspace archive");
            }
            workspaceOut = workspaces.apply(r.workspaceOut(), "workspaceOut");
            // The branch's changes go in before any process of it runs again, and before the workspace
            // appears at workspaceOut: a refused patch or a failed extraction leaves it as it was.
            WorkspaceArchive.restore(store.inSnapshot(id, "workspace.tar"), m.workspaceSha256, workspaceOut,
                    staged -> WorkspacePatch.applyAll(r.patches(), staged));
        } else if (!r.patches().isEmpty()) {
            throw new IllegalArgumentException("patches: need workspaceOut (a workspace to patch)");
        }
        String restoreId = id + "-r" + System.currentTimeMillis() + "-" + COUNTER.incrementAndGet();
        if (m.checkpointImage != null) {
            if (gpuPod != null) {
                // The runtime brings the processes back later, with their CUDA state checkpointed: resume it then.
                RestoredGpuResume.start(gpuPod, new java.util.HashSet<>(m.gpuNamespacePids), cuda, Duration.ofMinutes(15));
            }
            metrics.outcome("restore", "ok");
            return new RestoreResult(id.value(), restoreId, 0, importMs, verifyMs, workspaceOut == null ? null : workspaceOut.toString(),
                    m.checkpointImage);
        }
        if (Boolean.TRUE.equals(m.diskOnly)) {
            if (workspaceOut == null) {
                throw new IllegalArgumentException("workspaceOut: snapshot '" + id + "' holds only a workspace; say where to put it");
            }
            // No processes to bring back: the caller starts the agent again in the restored workspace.
            metrics.outcome("restore", "ok");
            return new RestoreResult(id.value(), restoreId, 0, 0, verifyMs, workspaceOut.toString());
        }
        if (runner == null) {
            throw new CriuException(dev.crucible.snapshot.criu.CriuBinary.MISSING);
        }
        Path work = store.workDir(restoreId);
        Path pidFile = work.resolve("restored.pid");
        CriuResult res = runner.run("restore", CriuArgs.restore(store.inSnapshot(id, m.imagesDir), pidFile,
                r.tcpEstablished() || m.tcpEstablished, false), work, "restore.log", criuTimeout, null);
        long pid;
        try {
            pid = Long.parseLong(Files.readString(pidFile).trim());
        } catch (IOException | NumberFormatException e) {
            throw new CriuException("criu restore succeeded but wrote no pid file " + pidFile);
        }
        if (FreezeHandle.SIGSTOP.equals(m.freezer)) {
            // CRIU restores tasks in the state it found them: stopped. Let the branch run.
            Signals.send("CONT", ProcessTree.of(pid).stream().map(ProcessRef::pid).toList());
        }
        resumeRestoredGpu(m, pid);
        metrics.phase("restore", Duration.ofNanos(res.durationNanos()));
        metrics.outcome("restore", "ok");
        return new RestoreResult(id.value(), restoreId, pid, res.millis(), verifyMs,
                workspaceOut == null ? null : workspaceOut.toString());
    }


    private void resumeRestoredGpu(Manifest m, long restoredRoot) {
        if (m.gpuNamespacePids == null || m.gpuNamespacePids.isEmpty()) {
            return;
        }
        if (cuda == null) {
            throw new IllegalStateException("snapshot holds CUDA state but " + CudaCheckpoint.MISSING);
        }
        for (ProcessRef p : ProcessTree.of(restoredRoot)) {
            List<Long> ns = ProcFs.nsPids(p.pid());
            if (m.gpuNamespacePids.contains(ns.get(ns.size() - 1))) {
                cuda.resume(p.pid());
            }
        }
    }

}
