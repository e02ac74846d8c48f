package dev.crucible.cli.run;

import dev.crucible.api.v1alpha1.common.ResourcesSpec;
import dev.crucible.contract.SpecDefaults;
import dev.crucible.verifier.sandbox.DiskVolume;
import dev.crucible.verifier.sandbox.Quantities;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
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
    /** In the attempt folder: what the cleanup did not remove in time, and where it is. */
    static final String LEFT_BEHIND = "left-behind.txt";
    /**
     * How long the cleanup after a result may take (the workspace moved off its volume, the state folder removed); past it the
     * rest is handed off or goes with the volume, so the CLI ends. A 2 GiB sparse file took 25 to 34 s to move at load 30.
     */
    static final Duration CLEANUP = Duration.ofSeconds(60);
    /**
     * How long past {@link #CLEANUP} a close is waited for (the volume's unmount, an image's compaction) before it is left
     * running on a daemon thread and named as unfinished: the CLI never hangs on it. A compaction's e2fsck still running then
     * is killed ({@link DiskVolume#stopTools}), so the volume is unmounted and deleted after all.
     */
    static final Duration UNMOUNT_MARGIN = Duration.ofSeconds(30);
    /**
     * The cleanup's bound once the run is stopped by a signal ({@link Interruption#stopping}): whoever sent it waits for the CLI
     * (and SIGKILLs it after a while). What is not moved off the volume by then goes with it, listed in not-kept.txt; a state
     * folder on the host's disk is handed to a detached removal ({@code TreeCopy.delete}).
     */
    static final Duration INTERRUPTED = Duration.ofSeconds(3);
    /** As {@link #UNMOUNT_MARGIN}, once stopped by a signal: a volume still busy then is unmounted lazily, or swept by the next run. */
    static final Duration INTERRUPTED_MARGIN = Duration.ofSeconds(4);

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
                if (l != null) l.await(Interruption.GRACE_S + 3, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            // all at once, under one bound: one after another, a SIGTERM during --parallel N took up to N x 60 s; and the short
            // one: the JVM is exiting, and whoever stopped it is waiting
            closeAll(INTERRUPTED, INTERRUPTED_MARGIN).forEach(line -> System.err.println("crucible: cleanup: " + line));
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
    private final List<String> leftBehind = new java.util.concurrent.CopyOnWriteArrayList<>(); // read while a close still runs
    private volatile String step = "waiting to start"; // what a close is doing now, named when it runs past its bound

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
            state = Files.createTempDirectory(StaleStateFolders.prefix(), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
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
        if (rec.limitExceeded == null) rec.limitExceeded = "disk limit " + Quantities.human(bytes) + " reached by the grading copy of the workspace ("
                + volume.whatFilled() + ")";
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
     * folder. Once; a second caller (the exit hook while the attempt's thread closes it) waits for the first. Within
     * {@link #CLEANUP}: see {@link #close(Duration)}.
     */
    @Override
    public void close() {
        close(CLEANUP);
    }

    /**
     * As {@link #close()}, in about {@code within} (plus the volume's unmount): the result is written by then, and a tree the
     * agent made (millions of entries, deep, 000 folders, a slow file system) must not hold the CLI past it. The state folder
     * is removed for at most that long ({@code TreeCopy.delete}: the rest moved out and removed by a detached {@code rm -rf},
     * or left to the volume's removal); the workspace is moved off the volume until then (the rest goes with the volume,
     * listed in not-kept.txt). What was left, and where, is in {@link #leftBehind} and {@value #LEFT_BEHIND}.
     */
    synchronized void close(Duration within) {
        if (closed) return;
        closed = true;
        long deadline = System.nanoTime() + within.toNanos();
        try {
            if (volume == null) {
                step = "removing the state folder " + stateDir;
                String left = dev.crucible.verifier.pristine.TreeCopy.delete(stateDir, within);
                if (left != null) leftBehind.add("state folder " + left);
                return;
            }
            closeVolume(deadline);
        } finally {
            step = "done";
            writeLeftBehind();
            // only now: a signal while this close still moves the workspace finds it open, and the exit hook ends it
            // (host round 7, case 4: SIGTERM during the move after the result left the volume mounted, unsaid)
            OPEN.remove(this);
        }
    }

    private void writeLeftBehind() {
        if (leftBehind.isEmpty()) return;
        try {
            dev.crucible.files.OutputFolder.replace(dir.root().resolve(LEFT_BEHIND), String.join("\n", leftBehind) + "\n");
        } catch (IOException | RuntimeException e) {
            // the lines are printed too; the run's result does not depend on the file
        }
    }

    /**
     * {@link #close(Duration)} on a daemon thread of its own, waited for {@code within} plus {@code margin} at most. Past that it
     * goes on in the background, and {@link #leftBehind} (and {@value #LEFT_BEHIND}) names the step it was in.
     */
    void closeBounded(Duration within, Duration margin) {
        Thread t = start(within);
        join(List.of(t), System.nanoTime() + within.plus(margin).toNanos());
        unfinished(t, within.plus(margin), Interruption.stopping);
    }

    /** As above, with the bound of now: the short one ({@link #INTERRUPTED}) once the run is stopped by a signal. */
    void closeBounded() {
        boolean stopping = Interruption.stopping;
        closeBounded(stopping ? INTERRUPTED : CLEANUP, stopping ? INTERRUPTED_MARGIN : UNMOUNT_MARGIN);
    }

    /**
     * Closes every open scratch at once, each within {@code within} from now, and waits for them {@code within} plus
     * {@code margin} in all (the exit hook: on SIGTERM with {@code --parallel N} they closed one after another, N x 60 s).
     * Returns what each left and where, and each close still running then, by its step.
     */
    static List<String> closeAll(Duration within, Duration margin) {
        List<AttemptScratch> all = List.copyOf(OPEN);
        List<Thread> threads = all.stream().map(s -> s.start(within)).toList();
        join(threads, System.nanoTime() + within.plus(margin).toNanos());
        List<String> lines = new java.util.ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            all.get(i).unfinished(threads.get(i), within.plus(margin), true);
            for (String l : all.get(i).leftBehind()) lines.add(all.get(i).dir.root() + ": " + l);
        }
        return lines;
    }

    private Thread start(Duration within) {
        Thread t = new Thread(() -> close(within), "crucible-cleanup-" + dir.root().getFileName());
        t.setDaemon(true); // one left running past its bound never keeps the JVM
        t.start();
        return t;
    }

    private static void join(List<Thread> threads, long deadline) {
        try {
            for (Thread t : threads) t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * A close still running past its bound. {@code exiting}: the JVM ends next (a signal, or the exit hook), and the close's
     * thread with it, mid-copy: the volume is unmounted now (lazily: the copy's open files hold it until the JVM's end) and its
     * image deleted, so nothing outlives the CLI (host round 6, P3: a SIGTERM while grading beside 2 GiB left the mount and a
     * 4.3 GB image until the next run). What was not moved off it by then went with it.
     */
    private void unfinished(Thread t, Duration waited, boolean exiting) {
        if (!t.isAlive()) return;
        if (volume != null) volume.stopTools(); // a compaction's e2fsck: killed, so the close goes on to unmount and delete
        if (volume != null && exiting) {
            String was = step;
            volume.close();
            leftBehind.add("cleanup not finished within " + waited.toSeconds() + " s (" + was + "): the volume " + volume.mountPoint()
                    + " was unmounted and its image deleted; what of the workspace was not yet moved off it went with it");
        } else {
            leftBehind.add("cleanup not finished within " + waited.toSeconds() + " s, still " + step + ": left running in the background"
                    + " (a volume left mounted is removed by the next crucible run once this one is gone)");
        }
        writeLeftBehind();
    }

    /**
     * Removes host folders of an attempt that has no scratch (a restored branch's state and pristine folders) within
     * {@link #CLEANUP} in all, saying on {@code progress} what was left and where.
     */
    static void remove(Progress progress, Path... trees) {
        long deadline = System.nanoTime() + CLEANUP.toNanos();
        for (Path t : trees) {
            String left = t == null ? null : dev.crucible.verifier.pristine.TreeCopy.delete(t, Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
            if (left != null) progress.info("cleanup: " + left);
        }
    }

    /** What the last {@link #close} could not remove in time, and where it is now (empty when all went). */
    List<String> leftBehind() { return List.copyOf(leftBehind); }

    private void closeVolume(long deadline) {
        step = "moving the agent's log off the volume";
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
            step = "moving the workspace off the volume (an image is compacted as it goes)";
            VolumeKeeper.keep(volume, dir, STATE, deadline, leftBehind::add);
        } finally {
            step = "unmounting and deleting the volume " + volume.mountPoint();
            volume.close();
            VolumeKeeper.finish(dir);
        }
    }
}
