package dev.crucible.snapshot.local;

import dev.crucible.files.StagedDirectory;
import dev.crucible.snapshot.criu.CriuBinary;
import dev.crucible.snapshot.criu.CriuException;
import dev.crucible.snapshot.criu.CriuLog;
import dev.crucible.snapshot.disk.WorkspaceArchive;
import dev.crucible.snapshot.freeze.FreezeHandle;
import dev.crucible.snapshot.freeze.Signals;
import dev.crucible.snapshot.store.ManifestKey;
import dev.crucible.snapshot.store.ManifestSeal;
import dev.crucible.snapshot.store.SnapshotVerification;
import dev.crucible.snapshot.store.ImageStore;
import dev.crucible.snapshot.client.store.Manifest;
import dev.crucible.snapshot.client.store.SnapshotId;
import dev.crucible.snapshot.client.store.SnapshotState;
import dev.crucible.snapshot.target.ProcessRef;
import dev.crucible.snapshot.target.ProcessTree;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Restores a local rollout snapshot as a branch that lives in its own folder. The tree was dumped
 * without a mount namespace of its own, so CRIU reopens its files (cwd, agent log, workspace) at
 * the absolute paths they had under the original attempt folder. Each branch therefore runs CRIU
 * inside a fresh private mount namespace in which {@code out} is bind-mounted over that original
 * folder: the restored processes inherit the namespace and see their branch's copy at the old
 * path, while the host and other branches see theirs. Two restores of one snapshot never share
 * a file under the attempt folder.
 */
public final class BranchRestorer {
    private static final AtomicLong COUNTER = new AtomicLong();

    /** {@code createdMountPoint}: the original attempt folder no longer existed and an empty one was made to bind over. */
    public record Branch(String snapshotId, long pid, long restoreMs, Path out, boolean createdMountPoint) {}

    private final Path store;
    private final ManifestSeal seal;

    /** With the local user's manifest key (see {@link ManifestKey#localDefault()}). */
    public BranchRestorer(Path store) {
        this(store, ManifestKey.localDefault());
    }

    public BranchRestorer(Path store, ManifestKey key) {
        this.store = store;
        this.seal = new ManifestSeal(key);
    }

    /**
     * @param out                 branch folder (absent or empty); receives the attempt folder as it was at the snapshot
     * @param originalRoot        the attempt folder the tree was dumped from
     * @param ownNetworkNamespace the tree has its own network namespace (restored without an iptables lock)
     */
    public Branch restore(String id, Path out, Path originalRoot, boolean ownNetworkNamespace) {
        ImageStore images = new ImageStore(store);
        SnapshotId sid = SnapshotId.of(id);
        Manifest m = images.require(sid);
        if (m.state != SnapshotState.COMPLETE) {
            throw new IllegalStateException("snapshot '" + id + "' is " + m.state + (m.reason == null ? "" : " (" + m.reason + ")")
                    + "; only COMPLETE snapshots are restored");
        }
        if (m.workspaceSha256 == null) throw new IllegalStateException("snapshot '" + id + "' has no workspace archive");
        Path dir = images.snapshotDir(sid);
        SnapshotVerification.verify(dir, m, sid, seal);
        CriuBinary criu = CriuBinary.require();
        // Built beside `out` and renamed onto it only once the tree runs: a failure anywhere leaves
        // `out` as it was. The restored tree sees the staging folder through the bind mount; the
        // rename keeps that folder (same inode), so it goes on seeing its files at the original path.
        try (StagedDirectory staged = StagedDirectory.beside(out)) {
            WorkspaceArchive.extractInto(images.inSnapshot(sid, "workspace.tar"), m.workspaceSha256, staged.path());
            boolean created = false;
            if (!Files.isDirectory(originalRoot)) {
                Files.createDirectories(originalRoot); // the bind needs a mount point; it stays empty on the host
                created = true;
            }
            Path work = images.workDir(id + "-branch-" + System.currentTimeMillis() + "-" + COUNTER.incrementAndGet());
            Path pidFile = work.resolve("restored.pid");
            List<String> cmd = new ArrayList<>(List.of("unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c",
                    "mount --bind \"$1\" \"$2\" && shift 2 && exec \"$@\"", "crucible-branch", staged.path().toString(), originalRoot.toString(),
                    criu.path().toString(), "restore", "--images-dir", images.inSnapshot(sid, m.imagesDir).toString(),
                    "--restore-detached", "--pidfile", pidFile.toString(), "--manage-cgroups=ignore"));
            if (ownNetworkNamespace) cmd.addAll(List.of("--network-lock", "skip"));
            cmd.addAll(List.of("--work-dir", work.toString(), "--log-file", "restore.log", "-v4"));
            long t0 = System.nanoTime();
            Path console = work.resolve("restore.out");
            // output to a file, as CriuRunner does: a pipe broken by our death would kill CRIU mid-restore
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(console.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
            if (!p.waitFor(10, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new CriuException("restore", "timed out after 10 minutes", CriuLog.errors(work.resolve("restore.log")),
                        work.resolve("restore.log").toString());
            }
            if (p.exitValue() != 0) {
                List<String> errors = CriuLog.errors(work.resolve("restore.log"));
                if (errors.isEmpty()) errors = Files.readAllLines(console);
                throw new CriuException("restore", "exited with status " + p.exitValue(), errors, work.resolve("restore.log").toString());
            }
            long pid = Long.parseLong(Files.readString(pidFile).trim());
            staged.publish();
            if (FreezeHandle.SIGSTOP.equals(m.freezer)) {
                // frozen by SIGSTOP, so CRIU restored the tasks stopped: let the branch run
                Signals.send("CONT", ProcessTree.of(pid).stream().map(ProcessRef::pid).toList());
            }
            return new Branch(id, pid, (System.nanoTime() - t0) / 1_000_000, out, created);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CriuException("interrupted during restore of '" + id + "'");
        }
    }
}
