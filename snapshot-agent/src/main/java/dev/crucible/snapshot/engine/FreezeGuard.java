package dev.crucible.snapshot.engine;

import dev.crucible.snapshot.client.api.CommitAction;
import dev.crucible.snapshot.freeze.FreezeHandle;
import dev.crucible.snapshot.freeze.FreezeJournal;
import dev.crucible.snapshot.freeze.Freezer;
import dev.crucible.snapshot.freeze.JournalEntry;
import dev.crucible.snapshot.freeze.Signals;
import dev.crucible.snapshot.metrics.SnapshotMetrics;
import dev.crucible.snapshot.store.ImageStore;
import dev.crucible.snapshot.client.store.SnapshotState;
import dev.crucible.snapshot.target.ProcessRef;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's first two safety rules in one place, apart from the phases that rely on them: a
 * freeze is journalled (fsync) before it happens, and a frozen tree is always thawed — by
 * {@link #release} (at most once per part, from any thread), by {@link #abort}, or by the watchdog
 * at the freeze deadline, which never waits for a (possibly hung) request thread.
 */
final class FreezeGuard {

    private static final Logger LOG = LoggerFactory.getLogger(FreezeGuard.class);
    static final ProcessRef SELF = JournalEntry.self();

    private final ImageStore store;
    private final Freezer freezer;
    private final SnapshotMetrics metrics;
    private final FreezeJournal journal;
    /** The engine's in-flight sessions: an abort drops its session from them. */
    private final Sessions sessions;
    private final ScheduledExecutorService watchdog;

    FreezeGuard(ImageStore store, Freezer freezer, SnapshotMetrics metrics, FreezeJournal journal,
                Sessions sessions) {
        this.store = store;
        this.freezer = freezer;
        this.metrics = metrics;
        this.journal = journal;
        this.sessions = sessions;
        this.watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "crucible-freeze-watchdog");
            t.setDaemon(true);
            return t;
        });
    }

    /** Journals, freezes, and arms the watchdog that aborts (thaws) the session at {@code timeout}. */
    FreezeHandle freeze(Session s, Duration timeout) {
        Instant now = Instant.now();
        s.journal = new JournalEntry(s.id, s.pauseOnly ? null : s.id, plannedHandle(s), s.gpu == null ? List.of() : s.gpu.suspended(),
                SELF.pid(), SELF.startTime(), now, now.plus(timeout), null, "frozen");
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
        s.watchdog = watchdog.schedule(() -> abort(s, "freeze deadline of " + timeout.toMillis()
                + " ms exceeded; thawed by the watchdog"), timeout.toMillis(), TimeUnit.MILLISECONDS);
        return h;
    }

    /**
     * Runs {@code work} with the session's tree thawed and freezes it again after, unless the session
     * was aborted meanwhile (then it stays thawed). For a container runtime's checkpoint, which pauses
     * the container itself and refuses one it finds frozen. Not earlier than the call's end: containerd
     * pauses twice within one checkpoint (measured on the real node: 67 ms, then the dump), and a
     * container found frozen between them fails the checkpoint, or, stopped by SIGSTOP, would be dumped
     * and restored stopped. The journal and the watchdog stay armed throughout, so a crash or a deadline
     * still ends in a thaw; an abort during the call only thaws (as during a CRIU dump) and this thread
     * finishes the release. Records in {@code s.liftedNanos} how long the agent's freeze was lifted.
     */
    <T> T unfrozen(Session s, java.util.concurrent.Callable<T> work) throws Exception {
        synchronized (s) {
            if (s.aborted || s.handle == null) {
                throw new SessionConflictException("snapshot '" + s.id + "' is no longer frozen" + (s.aborted ? ": " + s.abortReason : ""));
            }
            Freezer.thaw(s.handle);
            s.criuRunning = true;
        }
        long lifted = System.nanoTime();
        try {
            return work.call();
        } finally {
            boolean aborted;
            synchronized (s) {
                s.criuRunning = false;
                aborted = s.aborted;
                if (!aborted && s.handle != null) {
                    s.handle = freezer.freeze(s.target, s.cgroup, Duration.ofSeconds(10));
                }
            }
            s.liftedNanos = System.nanoTime() - lifted;
            if (aborted) {
                release(s, CommitAction.THAW);
            }
        }
    }

    /**
     * Undoes whatever the session holds, each part at most once: thaws (or stops) the tree if it is
     * frozen, resumes suspended GPU state, cancels the watchdog, drops the journal entry. Safe to
     * call from any thread, any number of times, in any phase. While CRIU still holds the tree it
     * only thaws (CRIU re-freezes on exit) and leaves the rest to the dump thread, which calls again.
     * Returns how long the tree was frozen.
     */
    long release(Session s, CommitAction action) {
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

    /** Thaws (GPU resumed) and marks the snapshot FAILED, once; never waits for a phase in progress. */
    void abort(Session s, String reason) {
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
        sessions.remove(s);
        if (s.manifest != null) {
            s.manifest.state = SnapshotState.FAILED;
            s.manifest.reason = reason;
            s.manifest.completedAt = Instant.now();
            try {
                save(s);
            } catch (RuntimeException e) {
                LOG.error("cannot mark " + s.id + " FAILED", e);
            }
            metrics.outcome("snapshot", "failed");
        }
    }

    /** A phase threw: abort the session (or, if it already was, release what the phase took since) and say why. */
    RuntimeException fail(Session s, String phase, Exception e) {
        String reason = phase + " failed: " + e.getMessage();
        boolean wasAborted;
        synchronized (s) {
            wasAborted = s.aborted;
        }
        if (!wasAborted) {
            abort(s, reason);
        } else {
            reason = s.abortReason;
            release(s, CommitAction.THAW); // whatever this phase acquired after the abort (GPU, freeze) goes too
        }
        return new SnapshotFailedException("snapshot '" + s.id + "' " + reason, e);
    }

    /** Writes the session's manifest; under the session lock so an abort's FAILED is never overwritten half-way. */
    void save(Session s) {
        synchronized (s) {
            store.save(s.manifest);
        }
    }

    /** Stops the watchdog; sessions still frozen must have been aborted first. */
    void shutdown() {
        watchdog.shutdownNow();
    }

    /** How the target will be (or is) frozen, for the journal: thawing an unfrozen target is harmless. */
    static FreezeHandle plannedHandle(Session s) {
        return new FreezeHandle(s.cgroup != null ? FreezeHandle.CGROUP_V2 : FreezeHandle.SIGSTOP,
                s.cgroup == null ? null : s.cgroup.toString(), s.target.processes());
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
}
