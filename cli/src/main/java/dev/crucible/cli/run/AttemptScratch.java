package dev.crucible.cli.run;

import dev.crucible.api.v1alpha1.common.ResourcesSpec;
import dev.crucible.contract.SpecDefaults;
import dev.crucible.verifier.sandbox.DiskVolume;
import dev.crucible.verifier.sandbox.Quantities;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

/**
 * Where one attempt writes, and how much it may: as root, the attempt's {@code sandbox} folder is a
 * {@link DiskVolume} the size of its disk limit (spec.resources.ephemeralStorage, else
 * {@link SpecDefaults#EPHEMERAL_STORAGE}), and the state folder (the pristine copy, the grading copies of
 * the workspace, their results) lies on it too, beside the workspace but outside it and outside the box.
 * So every byte the agent writes, and every host copy of its files, counts against one limit the kernel
 * holds. Without root the sandbox folder is a tmpfs of that size in the run's own mount namespace
 * ({@link MountNamespace}) instead. Where neither can be made there is no volume: the state folder is a private
 * temporary folder as before and the box polls the workspace's size; {@link #describe} says which and why.
 *
 * <p>{@link #close} keeps the workspace in the attempt folder (see {@link VolumeKeeper}), then unmounts
 * the volume and deletes its image, also when the attempt failed.
 */
final class AttemptScratch implements AutoCloseable {
    /** The state folder's name on the volume: not the workspace, never bound into a box. */
    static final String STATE = ".crucible-state";
    /** The agent's output while it runs, on the volume (agent.log links to it): printing cannot fill the host either. */
    static final String AGENT_LOG = ".agent.log";
    /** The volume's image, beside the sandbox folder on the host (never inside a box). */
    static final String IMAGE = ".sandbox.img";

    /** Open scratches: a JVM exit (System.exit after the results, Ctrl-C) closes them, so no mount or image outlives the CLI. */
    private static final java.util.Set<AttemptScratch> OPEN = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * Released once a run's results are written (RolloutRunner). The JVM runs its shutdown hooks at once, side by side: on
     * SIGTERM this hook would otherwise take an attempt's state folder (its pristine copy) away while the attempt's monitor
     * still scans it, and the monitor read the vanished copy as tampering (blind host-side red team: 3 of 7 SIGTERMs gave an
     * untouched workspace two critical grader-tampering findings).
     */
    private static volatile java.util.concurrent.CountDownLatch resultsWritten;

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            java.util.concurrent.CountDownLatch l = resultsWritten;
            try {
                if (l != null) l.await(Interruption.GRACE_S + 15, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            List.copyOf(OPEN).forEach(AttemptScratch::close);
        }, "crucible-attempt-disks"));
    }

    /** Until {@code written} is released, the exit hook leaves open scratches to their attempts (see {@link #resultsWritten}). */
    static void closeAfter(java.util.concurrent.CountDownLatch written) {
        resultsWritten = written;
    }

    private static final java.util.concurrent.atomic.AtomicBoolean SWEPT = new java.util.concurrent.atomic.AtomicBoolean();

    private final AttemptDir dir;
    private final long bytes;
    private final boolean defaulted;
    private final DiskVolume volume;
    private final String problem;
    private final Path stateDir;
    private boolean closed;

    private AttemptScratch(AttemptDir dir, long bytes, boolean defaulted, DiskVolume volume, String problem, Path stateDir) {
        this.dir = dir;
        this.bytes = bytes;
        this.defaulted = defaulted;
        this.volume = volume;
        this.problem = problem;
        this.stateDir = stateDir;
    }

    /**
     * Mounts the volume on {@code dir.sandbox()} when {@code wanted} and root can (a snapshot-able run does
     * without: CRIU would have to dump and restore the mount), and makes the state folder.
     */
    static AttemptScratch open(AttemptDir dir, ResourcesSpec resources, boolean wanted) throws IOException {
        boolean defaulted = resources == null || resources.ephemeralStorage == null || resources.ephemeralStorage.isBlank();
        long bytes = Quantities.bytes(defaulted ? SpecDefaults.EPHEMERAL_STORAGE : resources.ephemeralStorage, "spec.resources.ephemeralStorage");
        if (wanted && SWEPT.compareAndSet(false, true)) dev.crucible.verifier.sandbox.OrphanVolumes.sweep(); // volumes of a killed run
        DiskVolume.Opened o = wanted ? (dev.crucible.verifier.sandbox.Box.ROOT ? DiskVolume.open(dir.root().resolve(IMAGE), dir.sandbox(), bytes)
                : MountNamespace.volume(dir.root().resolve(IMAGE), dir.sandbox(), bytes))
                : new DiskVolume.Opened(null, "a snapshot-able run keeps its folders on the host's disk (CRIU cannot move a mount)");
        Path state;
        if (o.volume() != null) {
            state = dir.sandbox().resolve(STATE);
            Files.createDirectory(state, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } else {
            state = Files.createTempDirectory("crucible-state-", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        }
        AttemptScratch s = new AttemptScratch(dir, bytes, defaulted, o.volume(), o.problem(), state);
        OPEN.add(s);
        return s;
    }

    /** The attempt's 0700 state folder: on the volume when there is one. */
    Path stateDir() { return stateDir; }

    /**
     * When {@code message} (a grading error) is this attempt's volume out of room (ENOSPC), the run ends on the disk limit: notes it in
     * {@code rec} (the agent's own reaching it first, if it did) and says so. The grading copies count against the limit too.
     */
    boolean noteFull(AttemptRecord rec, String message, Progress progress) {
        if (volume == null || message == null || !message.contains("No space left on device")) return false;
        if (rec.limitExceeded == null) rec.limitExceeded = "disk limit " + Quantities.human(bytes) + " reached by the grading copy of the workspace";
        progress.info("grading could not copy the workspace: " + rec.limitExceeded);
        return true;
    }

    /** The volume the box's writable folders lie on, or null. */
    DiskVolume volume() { return volume; }

    /**
     * Puts the agent's output on the volume: {@code agent.log} becomes a link to a file there until {@link #close}
     * moves the file back in its place. Nothing without a volume (the log is the host's, as before).
     */
    void holdAgentLog() throws IOException {
        if (volume == null) return;
        Path log = dir.sandbox().resolve(AGENT_LOG);
        Files.deleteIfExists(log);
        Files.createFile(log);
        Files.deleteIfExists(dir.agentLog());
        Files.createSymbolicLink(dir.agentLog(), log);
    }

    /** The disk limit in bytes (the environment's, or the default). */
    long bytes() { return bytes; }

    /** One line for the run's first lines: the limit, where it came from, and whether the kernel holds it. */
    String describe() {
        String what = "disk limit " + Quantities.human(bytes) + (defaulted ? " (the default: spec.resources.ephemeralStorage is not set)"
                : " (spec.resources.ephemeralStorage)");
        if (volume != null) {
            return what + ": enforced by " + volume.kind() + " of that size holding the workspace and the grading copies"
                    + " (writes past it fail with ENOSPC; the box's /tmp is a separate " + "tmpfs in memory)";
        }
        return what + ": NOT enforced as a hard cap (" + problem + "); the workspace's size is checked every 2 s and"
                + " RLIMIT_FSIZE caps each file, so fast or parallel writers, sparse files and the grading copies can pass it";
    }

    /**
     * Keeps the workspace in the attempt folder, then unmounts and deletes the volume; or deletes the temporary state
     * folder. Once; a second caller (the exit hook while the attempt's thread closes it) waits for the first.
     */
    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        OPEN.remove(this);
        if (volume == null) {
            dev.crucible.verifier.TreeCopy.delete(stateDir);
            return;
        }
        try {
            Path log = dir.sandbox().resolve(AGENT_LOG);
            if (Files.isSymbolicLink(dir.agentLog()) && Files.isRegularFile(log, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                Files.delete(dir.agentLog());
                VolumeKeeper.move(log, dir.agentLog(), volume);
            }
        } catch (IOException e) {
            // the log stays on the volume and goes with it; the run's result does not depend on it
        }
        try {
            VolumeKeeper.keep(volume, dir, STATE);
        } finally {
            volume.close();
            VolumeKeeper.finish(dir);
        }
    }
}
