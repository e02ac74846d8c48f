package dev.crucible.snapshot.engine;

import dev.crucible.snapshot.client.api.CommitAction;
import dev.crucible.snapshot.client.api.RestoreRequest;
import dev.crucible.snapshot.client.api.RestoreResult;
import dev.crucible.snapshot.client.api.SnapshotRequest;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.crucible.snapshot.HostAssumptions;
import dev.crucible.snapshot.client.api.WorkspacePatch;
import dev.crucible.snapshot.client.store.Manifest;
import dev.crucible.snapshot.client.store.SnapshotState;
import dev.crucible.snapshot.client.api.TargetSpec;
import dev.crucible.snapshot.workload.MemoryWorkload;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Disk-only snapshots (what a cluster can take of a container today): the tree is frozen while its
 * workspace is archived, then thawed; no CRIU runs, and a restore gives the workspace back.
 */
class DiskOnlySnapshotTest {

    @TempDir
    Path tmp;

    @Test
    void freezesArchivesTheWorkspaceThawsAndRestoresOnlyTheWorkspace() throws Exception {
        HostAssumptions.assumeProcessTools();
        Path root = Files.createDirectories(tmp.resolve("workspaces"));
        Path ws = Files.createDirectories(root.resolve("ws"));
        Files.writeString(ws.resolve("solution.py"), "print('half done')\n");
        try (SnapshotEngine engine = new EngineBuilder().store(tmp.resolve("store")).workspaceRoot(root).build();
             MemoryWorkload w = MemoryWorkload.start(8, 0, 10, 0, ws)) {
            SnapshotRequest r = new SnapshotRequest("disk-1", "g", TargetSpec.ofPid(w.pid()), null, false, false,
                    ws.toString(), null, null, true);

            Manifest m = engine.snapshot(r, CommitAction.THAW);

            assertThat(m.state).isEqualTo(SnapshotState.COMPLETE);
            assertThat(m.diskOnly).isTrue();
            assertThat(m.imagesDir).isNull();
            assertThat(m.imageBytes).isZero();
            assertThat(m.workspaceBytes).isPositive();
            assertThat(m.freezeWindowMs).isNotNull();
            long c = w.status().count();
            await().atMost(Duration.ofSeconds(5)).until(() -> w.status().count() > c);

            Path out = Files.createDirectories(root.resolve("branch"));
            RestoreResult restored = engine.restore(new RestoreRequest("disk-1", out.toString(), true, false,
                    List.of(new WorkspacePatch("HINT.md", "check the sign", null))));
            assertThat(restored.pid()).as("no process comes back").isZero();
            assertThat(out.resolve("solution.py")).hasContent("print('half done')");
            assertThat(out.resolve("HINT.md")).hasContent("check the sign");

            assertThatThrownBy(() -> engine.restore(RestoreRequest.of("disk-1")))
                    .hasMessageContaining("workspaceOut");
        }
    }

    @Test
    void aDiskOnlySnapshotNeedsAWorkspace() throws Exception {
        HostAssumptions.assumeProcessTools();
        try (SnapshotEngine engine = new EngineBuilder().store(tmp.resolve("store")).build();
             MemoryWorkload w = MemoryWorkload.start(8, 0, 10, 0)) {
            assertThatThrownBy(() -> engine.prepare(new SnapshotRequest("disk-2", "g", TargetSpec.ofPid(w.pid()), null,
                    false, false, null, null, null, true)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("workspace:");
            assertThat(engine.inFlight()).isEmpty();
        }
    }
}
