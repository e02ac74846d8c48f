package dev.crucible.snapshot.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.crucible.snapshot.HostAssumptions;
import dev.crucible.snapshot.client.api.CommitAction;
import dev.crucible.snapshot.client.api.SnapshotRequest;
import dev.crucible.snapshot.client.api.TargetSpec;
import dev.crucible.snapshot.client.store.Manifest;
import dev.crucible.snapshot.client.store.SnapshotId;
import dev.crucible.snapshot.client.store.SnapshotState;
import dev.crucible.snapshot.workload.MemoryWorkload;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 41, soak finding: the agent's working set grew by each snapshot's size, the page cache of the
 * archive it wrote and then read again for its sha256, which the kernel charges to the agent's memory
 * cgroup. After a commit, the snapshot's archive must not be resident any more. Measured with
 * util-linux {@code fincore} (mincore(2) over the file); without {@code PageCache.drop} at commit the
 * whole archive is resident and this fails.
 */
class SnapshotPageCacheTest {

    static final int MIB = 1 << 20;

    @TempDir
    Path tmp;

    @Test
    void aCommittedSnapshotsArchiveIsNotLeftInThePageCache() throws Exception {
        HostAssumptions.assumeProcessTools();
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/fincore")) || Files.isExecutable(Path.of("/bin/fincore")),
                "util-linux fincore is not installed");
        Path root = Files.createDirectories(tmp.resolve("workspaces"));
        Path ws = Files.createDirectories(root.resolve("ws"));
        byte[] chunk = new byte[MIB];
        Random random = new Random(41);
        try (OutputStream out = Files.newOutputStream(ws.resolve("data.bin"))) {
            for (int i = 0; i < 24; i++) { // random: no file system can keep it small
                random.nextBytes(chunk);
                out.write(chunk);
            }
        }
        try (SnapshotEngine engine = new EngineBuilder().store(tmp.resolve("store")).workspaceRoot(root).build();
             MemoryWorkload w = MemoryWorkload.start(8, 0, 10, 0, ws)) {
            Manifest m = engine.snapshot(new SnapshotRequest("cache-1", "g", TargetSpec.ofPid(w.pid()), null, false, false,
                    ws.toString(), null, null, true), CommitAction.THAW);
            assertThat(m.state).isEqualTo(SnapshotState.COMPLETE);

            Path archive = engine.store().snapshotDir(SnapshotId.of("cache-1")).resolve("workspace.tar");
            long size = Files.size(archive);
            long resident = residentBytes(archive);
            System.out.println("snapshot page cache: workspace.tar " + size / MIB + " MiB, resident after commit "
                    + resident / 1024 + " KiB");
            assertThat(size).isGreaterThanOrEqualTo(24L * MIB);
            assertThat(resident).as("bytes of the committed archive still in the page cache").isLessThan(size / 100);
        }
    }

    /** Resident bytes of {@code file}, from fincore's RES column in bytes. */
    static long residentBytes(Path file) throws Exception {
        Process p = new ProcessBuilder("fincore", "--bytes", "--noheadings", "--output", "RES", file.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(p.waitFor()).as("fincore: " + out).isZero();
        return Long.parseLong(out);
    }
}
