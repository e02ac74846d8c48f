package dev.crucible.snapshot.engine;

import dev.crucible.snapshot.client.api.CommitAction;
import dev.crucible.snapshot.client.api.DumpResult;
import dev.crucible.snapshot.client.api.PrepareResult;
import dev.crucible.snapshot.client.api.RestoreRequest;
import dev.crucible.snapshot.client.api.RestoreResult;
import dev.crucible.snapshot.client.api.SnapshotRequest;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.crucible.snapshot.HostAssumptions;
import dev.crucible.snapshot.LocalSnapshots;
import dev.crucible.snapshot.freeze.CgroupV2Freezer;
import dev.crucible.snapshot.client.store.Manifest;
import dev.crucible.snapshot.client.store.SnapshotState;
import dev.crucible.snapshot.client.api.TargetSpec;
import dev.crucible.snapshot.workload.MemoryWorkload;
import dev.crucible.snapshot.workload.MemoryWorkload.Status;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 6 point 5, with real CRIU (skips, saying so, where CRIU >= 4.1 is missing). */
class CriuSnapshotRestoreTest {

    @TempDir
    Path tmp;

    private final List<Long> restored = new ArrayList<>();

    @BeforeEach
    void needsCriu() {
        HostAssumptions.assumeCriu();
    }

    @AfterEach
    void killRestoredCopies() {
        restored.forEach(MemoryWorkload::kill);
    }

    /** The restored task name is there at once (CRIU restores comm), so read it without Awaitility's poll delay. */
    private Status awaitStatus(long pid) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        Status s;
        while ((s = MemoryWorkload.status(pid)) == null && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(s).as("status of restored pid " + pid).isNotNull();
        return s;
    }

    @Test
    void restoredProcessContinuesFromTheDumpedCountWithItsBufferIntactAndTwoRestoresAreIndependent() throws Exception {
        try (SnapshotEngine engine = new EngineBuilder().store(tmp.resolve("store")).build();
             MemoryWorkload w = MemoryWorkload.start(256, 64, 50, 10)) {
            await().atMost(Duration.ofSeconds(10)).until(() -> w.status().count() >= 3);

            PrepareResult prep = engine.prepare(SnapshotRequest.of("counter-256", TargetSpec.ofPid(w.pid())));
            long dumpedCount = w.status().count(); // frozen: stable until commit
            DumpResult dump = engine.dump("counter-256");
            Manifest m = engine.commit("counter-256", CommitAction.THAW);

            assertThat(m.state).isEqualTo(SnapshotState.COMPLETE);
            assertThat(m.imageBytes).isGreaterThan(256L << 20);
            assertThat(m.files).isNotEmpty();
            assertThat(m.pidNamespaceRoot).isTrue();
            assertThat(m.freezeWindowMs).isGreaterThanOrEqualTo(dump.dumpMs());
            assertThat(prep.freezer()).isEqualTo("cgroup-v2");
            // the original keeps running (--leave-running) and races ahead
            await().atMost(Duration.ofSeconds(10)).until(() -> w.status().count() > dumpedCount + 20);

            RestoreResult a = engine.restore(RestoreRequest.of("counter-256"));
            restored.add(a.pid());
            Status first = awaitStatus(a.pid());
            assertThat(first.count()).as("restored copy starts from the dumped count").isBetween(dumpedCount, dumpedCount + 4);
            assertThat(first.count()).isLessThan(w.status().count());

            RestoreResult b = engine.restore(RestoreRequest.of("counter-256"));
            restored.add(b.pid());
            assertThat(b.pid()).isNotEqualTo(a.pid());
            assertThat(awaitStatus(b.pid()).count()).isBetween(dumpedCount, dumpedCount + 4);

            // both branches run on their own and verify their 256 MiB buffer (every 10 ticks)
            await().atMost(Duration.ofSeconds(15)).until(() -> MemoryWorkload.status(a.pid()).count() > dumpedCount + 25
                    && MemoryWorkload.status(b.pid()).count() > dumpedCount + 25);
            assertThat(MemoryWorkload.status(a.pid()).ok()).as("buffer checksum after restore").isTrue();
            assertThat(MemoryWorkload.status(b.pid()).ok()).isTrue();
            MemoryWorkload.kill(a.pid());
            long bCount = MemoryWorkload.status(b.pid()).count();
            await().atMost(Duration.ofSeconds(5)).until(() -> MemoryWorkload.status(b.pid()).count() > bCount + 5);
            assertThat(w.status().ok()).isTrue();
        }
    }

    @Test
    void abortThawsAndMarksFailedAndFailedSnapshotsAreNeverRestored() throws Exception {
        try (SnapshotEngine engine = new EngineBuilder().store(tmp.resolve("store")).build();
             MemoryWorkload w = MemoryWorkload.start(16, 0, 10, 0)) {
            PrepareResult p = engine.prepare(SnapshotRequest.of("aborted", TargetSpec.ofPid(w.pid())).withPreDumps(0));
            assertThat(CgroupV2Freezer.isFrozen(Path.of(p.cgroup()))).isTrue();
            Manifest m = engine.abort("aborted", "operator gave up");
            assertThat(m.state).isEqualTo(SnapshotState.FAILED);
            assertThat(m.reason).isEqualTo("operator gave up");
            assertThat(CgroupV2Freezer.isFrozen(Path.of(p.cgroup()))).isFalse();
            long c = w.status().count();
            await().atMost(Duration.ofSeconds(5)).until(() -> w.status().count() > c);
            assertThatThrownBy(() -> engine.restore(RestoreRequest.of("aborted")))
                    .isInstanceOf(SessionConflictException.class).hasMessageContaining("FAILED");
            assertThatThrownBy(() -> engine.dump("aborted")).isInstanceOf(SessionConflictException.class);
        }
    }

    @Test
    void failedDumpThawsTheTreeAndMarksTheSnapshotFailed() throws Exception {
        try (SnapshotEngine engine = new EngineBuilder().store(tmp.resolve("store")).build();
             MemoryWorkload w = MemoryWorkload.start(16, 0, 10, 0)) {
            PrepareResult p = engine.prepare(SnapshotRequest.of("doomed", TargetSpec.ofPid(w.pid())).withPreDumps(0));
            // sabotage: the final images directory cannot be created
            Files.writeString(tmp.resolve("store/snapshots/doomed/images/final"), "not a directory");
            assertThatThrownBy(() -> engine.dump("doomed")).isInstanceOf(SnapshotFailedException.class)
                    .hasMessageContaining("dump failed");
            assertThat(CgroupV2Freezer.isFrozen(Path.of(p.cgroup()))).isFalse();
            assertThat(engine.store().require(dev.crucible.snapshot.client.store.SnapshotId.of("doomed")).state)
                    .isEqualTo(SnapshotState.FAILED);
            assertThat(Files.list(engine.store().journalDir())).isEmpty();
        }
    }

    @Test
    void commitStopEndsTheOriginalAndItsImagesStillRestore() throws Exception {
        try (SnapshotEngine engine = new EngineBuilder().store(tmp.resolve("store")).build();
             MemoryWorkload w = MemoryWorkload.start(16, 0, 10, 0)) {
            engine.prepare(SnapshotRequest.of("migrate", TargetSpec.ofPid(w.pid())));
            engine.dump("migrate");
            Manifest m = engine.commit("migrate", CommitAction.STOP);
            assertThat(m.state).isEqualTo(SnapshotState.COMPLETE);
            await().atMost(Duration.ofSeconds(5)).until(() -> MemoryWorkload.status(w.pid()) == null);
            RestoreResult r = engine.restore(RestoreRequest.of("migrate"));
            restored.add(r.pid());
            long first = awaitStatus(r.pid()).count();
            await().atMost(Duration.ofSeconds(5)).until(() -> MemoryWorkload.status(r.pid()).count() > first + 3);
        }
    }

    @Test
    void tamperedImagesAreRefusedAtRestore() throws Exception {
        try (SnapshotEngine engine = new EngineBuilder().store(tmp.resolve("store")).build();
             MemoryWorkload w = MemoryWorkload.start(16, 0, 10, 0)) {
            Manifest m = engine.snapshot(SnapshotRequest.of("tampered", TargetSpec.ofPid(w.pid())), CommitAction.THAW);
            String anyImage = m.files.keySet().stream().filter(k -> k.startsWith("images/final/") && k.endsWith(".img"))
                    .findFirst().orElseThrow();
            Files.write(tmp.resolve("store/snapshots/tampered").resolve(anyImage), new byte[] {1, 2, 3}, java.nio.file.StandardOpenOption.APPEND);
            assertThatThrownBy(() -> engine.restore(RestoreRequest.of("tampered")))
                    .hasMessageContaining("fails verification").hasMessageContaining(anyImage);
        }
    }

    @Test
    void sigstopFrozenTreesAreDumpedAndTheirRestoresRun() throws Exception {
        try (SnapshotEngine engine = new EngineBuilder().store(tmp.resolve("store")).useCgroups(false).build();
             MemoryWorkload w = MemoryWorkload.start(16, 0, 10, 0)) {
            Manifest m = engine.snapshot(SnapshotRequest.of("stopped", TargetSpec.ofPid(w.pid())), CommitAction.THAW);
            assertThat(m.freezer).isEqualTo("sigstop");
            long c = w.status().count();
            await().atMost(Duration.ofSeconds(5)).until(() -> w.status().count() > c);
            RestoreResult r = engine.restore(RestoreRequest.of("stopped"));
            restored.add(r.pid());
            long first = awaitStatus(r.pid()).count();
            await().atMost(Duration.ofSeconds(5)).until(() -> MemoryWorkload.status(r.pid()).count() > first + 3);
        }
    }

    @Test
    void localSnapshotCapturesTheWorkspaceAndRestoresItIntoANewDirectory() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Files.writeString(ws.resolve("solution.py"), "print('hi')\n");
        Files.createDirectories(ws.resolve("pkg"));
        Files.writeString(ws.resolve("pkg/data.txt"), "42");
        Path store = tmp.resolve("store");
        try (MemoryWorkload w = MemoryWorkload.start(16, 0, 10, 0)) {
            Manifest m = LocalSnapshots.snapshot(w.pid(), ws, store);
            assertThat(m.state).isEqualTo(SnapshotState.COMPLETE);
            assertThat(m.workspaceSha256).hasSize(64);
            Files.writeString(ws.resolve("solution.py"), "changed after the snapshot");

            RestoreResult r = LocalSnapshots.restore(store, m.id, tmp.resolve("branch-1"));
            restored.add(r.pid());
            assertThat(tmp.resolve("branch-1/solution.py")).hasContent("print('hi')");
            assertThat(tmp.resolve("branch-1/pkg/data.txt")).hasContent("42");
            assertThat(awaitStatus(r.pid())).isNotNull();
            assertThatThrownBy(() -> LocalSnapshots.restore(store, m.id, tmp.resolve("branch-1")))
                    .hasMessageContaining("not empty");
            assertThat(new LocalSnapshots(store).list()).extracting(x -> x.id).containsExactly(m.id);
        }
    }
}
