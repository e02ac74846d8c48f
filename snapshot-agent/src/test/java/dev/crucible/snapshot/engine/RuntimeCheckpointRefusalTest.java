package dev.crucible.snapshot.engine;

import dev.crucible.snapshot.client.api.CommitAction;
import dev.crucible.snapshot.client.api.RestoreRequest;
import dev.crucible.snapshot.client.api.RestoreResult;
import dev.crucible.snapshot.client.api.RuntimeCheckpoint;
import dev.crucible.snapshot.client.api.SnapshotRequest;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.crucible.snapshot.HostAssumptions;
import dev.crucible.snapshot.container.CheckpointImage;
import dev.crucible.snapshot.container.ContainerRuntime;
import dev.crucible.snapshot.container.KubeletCheckpoints.CheckpointRefused;
import dev.crucible.snapshot.client.store.Manifest;
import dev.crucible.snapshot.store.ManifestKey;
import dev.crucible.snapshot.client.store.SnapshotId;
import dev.crucible.snapshot.client.store.SnapshotState;
import dev.crucible.snapshot.target.ProcFs;
import dev.crucible.snapshot.client.api.TargetSpec;
import dev.crucible.snapshot.workload.MemoryWorkload;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Snapshots whose memory the container runtime checkpoints, on a real process tree (SIGSTOP-frozen) with
 * a fake runtime standing in for the kubelet and containerd. Refused before anything is frozen or stored:
 * an engine without a runtime, a disk-only request that also names a runtime, an incomplete container
 * name. Taken: the freeze is lifted for the runtime's call only (the tree runs during it, is stopped again
 * after the dump and runs after commit), the archive becomes the sealed checkpoint image under
 * {@code checkpoint/}, a restore imports that image (and refuses a tampered one). A failing runtime fails
 * the snapshot and leaves the tree running.
 */
class RuntimeCheckpointRefusalTest {

    static final ManifestKey KEY = ManifestKey.of("test-key-0123456789abcdef0123456789".getBytes());
    static final RuntimeCheckpoint COUNTER = new RuntimeCheckpoint("team-a", "counter-0", "counter");

    @TempDir
    Path tmp;

    /** Stands in for the kubelet (checkpoint) and containerd (import); records what it saw. */
    static final class FakeRuntime implements ContainerRuntime {
        final Path kubeletDir;
        MemoryWorkload target;
        RuntimeException failure;
        final List<RuntimeCheckpoint> checkpoints = new CopyOnWriteArrayList<>();
        final List<Character> stateDuringCheckpoint = new CopyOnWriteArrayList<>();
        final List<Boolean> ranDuringCheckpoint = new CopyOnWriteArrayList<>();
        final List<CheckpointImage> imported = new CopyOnWriteArrayList<>();
        Path archive;
        byte[] archiveBytes;

        FakeRuntime(Path kubeletDir) {
            this.kubeletDir = kubeletDir;
        }

        @Override
        public Path checkpoint(RuntimeCheckpoint c, Duration timeout) {
            checkpoints.add(c);
            stateDuringCheckpoint.add(ProcFs.state(target.pid()));
            long before = target.status().count();
            long deadline = System.nanoTime() + 3_000_000_000L;
            while (target.status().count() == before && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            ranDuringCheckpoint.add(target.status().count() > before);
            if (failure != null) {
                throw failure;
            }
            try {
                archiveBytes = new byte[96 * 1024];
                new Random(17).nextBytes(archiveBytes);
                archive = Files.write(Files.createDirectories(kubeletDir).resolve("checkpoint-" + c.pod() + ".tar"), archiveBytes);
                return archive;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void importImage(CheckpointImage image, Duration timeout) {
            assertThat(image.layout().resolve("index.json")).as("the layout handed to containerd").exists();
            imported.add(image);
        }

        final List<String> removed = new CopyOnWriteArrayList<>();

        @Override
        public void removeImage(String reference, Duration timeout) {
            removed.add(reference);
        }
    }

    @Test
    void anEngineWithoutARuntimeRefusesBeforeFreezing() throws Exception {
        HostAssumptions.assumeProcessTools();
        try (SnapshotEngine engine = engine(null); MemoryWorkload w = MemoryWorkload.start(8, 0, 5, 0)) {
            assertThatThrownBy(() -> engine.prepare(request("rt-0", w).withRuntime(COUNTER)))
                    .isInstanceOf(IllegalStateException.class).hasMessageStartingWith("runtime:")
                    .hasMessageContaining("kubelet").hasMessageContaining("containerd");
            assertNothingLeft(engine, w);
        }
    }

    @Test
    void aDiskOnlyRequestNamingARuntimeOrAnIncompleteContainerIsRefused() throws Exception {
        HostAssumptions.assumeProcessTools();
        Path ws = Files.createDirectories(tmp.resolve("workspaces/ws"));
        FakeRuntime rt = new FakeRuntime(tmp.resolve("kubelet"));
        try (SnapshotEngine engine = engine(rt); MemoryWorkload w = MemoryWorkload.start(8, 0, 5, 0)) {
            rt.target = w;
            SnapshotRequest diskOnly = new SnapshotRequest("rt-d", "g", TargetSpec.ofPid(w.pid()), null, false, false,
                    ws.toString(), null, null, true, COUNTER);
            assertThatThrownBy(() -> engine.prepare(diskOnly))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("runtime:");
            assertThatThrownBy(() -> engine.prepare(request("rt-b", w).withRuntime(new RuntimeCheckpoint("team-a", " ", "counter"))))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("runtime:");
            assertThat(rt.checkpoints).isEmpty();
            assertNothingLeft(engine, w);
        }
    }

    @Test
    void theRuntimeCheckpointsTheRunningTreeIntoASealedImageThatARestoreImports() throws Exception {
        HostAssumptions.assumeProcessTools();
        Path root = Files.createDirectories(tmp.resolve("workspaces"));
        Path ws = Files.createDirectories(root.resolve("ws"));
        Files.writeString(ws.resolve("notes.txt"), "counting\n");
        FakeRuntime rt = new FakeRuntime(tmp.resolve("kubelet"));
        try (SnapshotEngine engine = engine(rt); MemoryWorkload w = MemoryWorkload.start(8, 0, 5, 0, ws)) {
            rt.target = w;
            engine.prepare(request("rt-1", w).withWorkspace(ws.toString()).withRuntime(COUNTER));
            assertThat(ProcFs.state(w.pid())).as("frozen by prepare").isEqualTo('T');
            assertThat(rt.checkpoints).as("the runtime is called in dump, not prepare").isEmpty();

            engine.dump("rt-1");
            assertThat(rt.checkpoints).containsExactly(COUNTER);
            assertThat(rt.stateDuringCheckpoint).as("the runtime refuses a frozen container: thawed for its call").doesNotContain('T');
            assertThat(rt.ranDuringCheckpoint).as("the tree ran during the runtime's call").containsExactly(true);
            assertThat(ProcFs.state(w.pid())).as("frozen again after the runtime's checkpoint, until commit").isEqualTo('T');
            assertThat(rt.archive).as("the kubelet's archive is moved into the store").doesNotExist();

            Manifest m = engine.commit("rt-1", CommitAction.THAW);
            assertRunning(w);
            String ref = RuntimeCheckpoint.imageReference("rt-1");
            assertThat(m.state).isEqualTo(SnapshotState.COMPLETE);
            assertThat(m.checkpointImage).isEqualTo(ref);
            assertThat(m.checkpointBytes).isEqualTo(rt.archiveBytes.length);
            assertThat(m.checkpointDigest).startsWith("sha256:");
            assertThat(m.imagesDir).isNull();
            assertThat(m.files).containsKeys("checkpoint/index.json", "checkpoint/oci-layout", "workspace.tar");
            Path layer = engine.store().snapshotDir(SnapshotId.of("rt-1")).resolve("checkpoint/blobs/sha256")
                    .resolve(sha256Hex(rt.archiveBytes));
            assertThat(layer).hasBinaryContent(rt.archiveBytes);

            Path out = Files.createDirectories(root.resolve("branch"));
            RestoreResult restored = engine.restore(new RestoreRequest("rt-1", out.toString(), true, false));
            assertThat(restored.checkpointImage()).isEqualTo(ref);
            assertThat(restored.pid()).as("the runtime, not the agent, brings the processes back").isZero();
            assertThat(rt.imported).hasSize(1);
            assertThat(rt.imported.get(0).layout()).isEqualTo(engine.store().snapshotDir(SnapshotId.of("rt-1")).resolve("checkpoint"));
            assertThat(rt.imported.get(0).reference()).isEqualTo(ref);
            assertThat(out.resolve("notes.txt")).hasContent("counting");

            Files.write(layer, new byte[] {1}, StandardOpenOption.APPEND);
            assertThatThrownBy(() -> engine.restore(RestoreRequest.of("rt-1")))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("fails verification");
            assertThat(rt.imported).as("a tampered checkpoint is never handed to containerd").hasSize(1);

            assertThat(engine.delete("rt-1")).isTrue();
            assertThat(rt.removed).as("a deleted snapshot's image leaves the node too").containsExactly(ref);
        }
    }

    @Test
    void aFailingRuntimeFailsTheSnapshotAndLeavesTheTreeRunning() throws Exception {
        HostAssumptions.assumeProcessTools();
        FakeRuntime rt = new FakeRuntime(tmp.resolve("kubelet"));
        rt.failure = new CheckpointRefused(500, "the kubelet refused the checkpoint: runc: criu dump failed");
        try (SnapshotEngine engine = engine(rt); MemoryWorkload w = MemoryWorkload.start(8, 0, 5, 0)) {
            rt.target = w;
            engine.prepare(request("rt-2", w).withRuntime(COUNTER));

            assertThatThrownBy(() -> engine.dump("rt-2"))
                    .isInstanceOf(SnapshotFailedException.class).hasMessageContaining("runc: criu dump failed");
            assertThat(rt.checkpoints).hasSize(1);
            assertThat(engine.store().require(SnapshotId.of("rt-2")).state).isEqualTo(SnapshotState.FAILED);
            assertThat(ProcFs.state(w.pid())).as("thawed, not left stopped").isNotEqualTo('T');
            assertRunning(w);
            assertThat(engine.inFlight()).isEmpty();
            try (Stream<Path> journal = Files.list(engine.store().journalDir())) {
                assertThat(journal).isEmpty();
            }
        }
    }

    private SnapshotEngine engine(ContainerRuntime rt) {
        return new EngineBuilder().store(tmp.resolve("store")).workspaceRoot(tmp.resolve("workspaces")).manifestKey(KEY)
                .useCgroups(false).containerRuntime(rt).build();
    }

    private static SnapshotRequest request(String id, MemoryWorkload w) {
        return SnapshotRequest.of(id, TargetSpec.ofPid(w.pid()));
    }

    /** Refused: nothing in flight, no snapshot but FAILED ones, no freeze journalled, the tree runs. */
    private static void assertNothingLeft(SnapshotEngine engine, MemoryWorkload w) throws Exception {
        assertThat(engine.inFlight()).isEmpty();
        assertThat(engine.list()).allSatisfy(m -> assertThat(m.state).isEqualTo(SnapshotState.FAILED));
        if (Files.isDirectory(engine.store().journalDir())) {
            try (Stream<Path> journal = Files.list(engine.store().journalDir())) {
                assertThat(journal).isEmpty();
            }
        }
        assertThat(ProcFs.state(w.pid())).isNotEqualTo('T');
        assertRunning(w);
    }

    private static void assertRunning(MemoryWorkload w) {
        long c = w.status().count();
        await().atMost(Duration.ofSeconds(5)).until(() -> w.status().count() > c);
    }

    /** A blob's file name in the layout: the sha256 of its bytes. */
    private static String sha256Hex(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }
}
