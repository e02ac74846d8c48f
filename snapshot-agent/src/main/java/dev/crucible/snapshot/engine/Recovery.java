package dev.crucible.snapshot.engine;

import dev.crucible.snapshot.freeze.FreezeJournal;
import dev.crucible.snapshot.freeze.Freezer;
import dev.crucible.snapshot.freeze.JournalEntry;
import dev.crucible.snapshot.freeze.Signals;
import dev.crucible.snapshot.gpu.CudaCheckpoint;
import dev.crucible.snapshot.store.ImageStore;
import dev.crucible.snapshot.client.store.Manifest;
import dev.crucible.snapshot.client.store.SnapshotId;
import dev.crucible.snapshot.client.store.SnapshotState;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.LinkedHashSet;
import java.util.Set;
import dev.crucible.snapshot.target.ProcessRef;
import dev.crucible.snapshot.target.ProcessScan;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Start-up recovery after the agent died (kill -9, OOM, node reboot of the pod): every journal
 * entry is a tree that may still be frozen. A CRIU that outlived the agent is given time to
 * finish, because killing it while its parasite runs inside the target would crash the target;
 * then the tree is thawed, its GPU state resumed, and the snapshot marked FAILED.
 */
final class Recovery {

    private static final Logger LOG = LoggerFactory.getLogger(Recovery.class);
    private static final long CRIU_GRACE_NANOS = 120L * 1_000_000_000L;

    private final ImageStore store;
    private final FreezeJournal journal;
    private final CudaCheckpoint cuda;

    Recovery(ImageStore store, FreezeJournal journal, CudaCheckpoint cuda) {
        this.store = store;
        this.journal = journal;
        this.cuda = cuda;
    }

    /** Returns one line per action taken, for the log. {@code live} are ids this process holds. */
    List<String> run(Set<String> live) {
        List<String> report = new ArrayList<>();
        journal.removeTornWrites();
        for (JournalEntry e : journal.entries()) {
            if (live.contains(e.name())) {
                continue;
            }
            for (ProcessRef criu : orphanedCriu(e)) {
                // thawing now would be undone: CRIU re-freezes the cgroup it found frozen when it finishes
                long deadline = System.nanoTime() + CRIU_GRACE_NANOS;
                while (criu.alive() && System.nanoTime() < deadline) {
                    LockSupport.parkNanos(50_000_000);
                }
                if (criu.alive()) {
                    Signals.send("KILL", List.of(criu.pid()));
                    report.add(e.name() + ": criu " + criu.pid() + " still running after grace period, killed");
                } else {
                    report.add(e.name() + ": waited for orphaned criu " + criu.pid() + " to finish");
                }
            }
            try {
                Freezer.thaw(e.handle());
                report.add(e.name() + ": thawed " + e.handle().kind()
                        + (e.handle().cgroupPath() == null ? "" : " " + e.handle().cgroupPath()));
            } catch (RuntimeException ex) {
                report.add(e.name() + ": thaw failed: " + ex.getMessage());
                LOG.error("recovery could not thaw " + e.name(), ex);
                continue; // keep the entry so the next start tries again
            }
            if (e.gpuPids() != null && !e.gpuPids().isEmpty() && cuda != null) {
                for (long pid : e.gpuPids()) {
                    try {
                        cuda.resume(pid);
                    } catch (RuntimeException ex) {
                        report.add(e.name() + ": GPU resume of " + pid + " failed: " + ex.getMessage());
                    }
                }
            }
            if (e.snapshotId() != null) {
                markFailed(e.snapshotId(), "agent restarted during " + e.phase() + "; the target was thawed", report);
            }
            journal.remove(e.name());
        }
        for (Manifest m : store.list()) {
            if (!m.state.terminal() && !live.contains(m.id)) {
                markFailed(m.id, "agent restarted while the snapshot was " + m.state, report);
            }
        }
        report.forEach(line -> LOG.info("recovery: " + line));
        return report;
    }

    /**
     * CRIU processes still working on this entry: the one the journal recorded, plus any criu whose
     * arguments name the snapshot's directory or the frozen cgroup (the agent may have died
     * between starting CRIU and journalling its pid).
     */
    private List<ProcessRef> orphanedCriu(JournalEntry e) {
        Set<ProcessRef> out = new LinkedHashSet<>();
        if (e.criu() != null && e.criu().alive()) {
            out.add(e.criu());
        }
        List<String> markers = new ArrayList<>();
        if (e.snapshotId() != null) {
            markers.add(store.snapshotDir(SnapshotId.of(e.snapshotId())).toString() + "/");
        }
        if (e.handle().cgroupPath() != null) {
            markers.add(e.handle().cgroupPath());
        }
        out.addAll(ProcessScan.matching(argv -> argv.get(0).endsWith("criu")
                && argv.stream().anyMatch(a -> markers.stream().anyMatch(a::startsWith))));
        return new ArrayList<>(out);
    }

    private void markFailed(String id, String reason, List<String> report) {
        store.find(SnapshotId.of(id)).ifPresent(m -> {
            if (!m.state.terminal()) {
                m.state = SnapshotState.FAILED;
                m.reason = reason;
                m.completedAt = Instant.now();
                store.save(m);
                report.add(id + ": marked FAILED (" + reason + ")");
            }
        });
    }
}
