package dev.crucible.snapshot.attacks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.crucible.snapshot.HostAssumptions;
import dev.crucible.snapshot.client.api.WorkspacePatch;
import dev.crucible.snapshot.client.api.CommitAction;
import dev.crucible.snapshot.engine.EngineBuilder;
import dev.crucible.snapshot.client.api.RestoreRequest;
import dev.crucible.snapshot.engine.SnapshotEngine;
import dev.crucible.snapshot.client.api.SnapshotRequest;
import dev.crucible.snapshot.client.store.Manifest;
import dev.crucible.snapshot.client.api.TargetSpec;
import dev.crucible.snapshot.workload.MemoryWorkload;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 14: attacks on what the snapshot agent restores. A disk-only snapshot (no CRIU needed) of a
 * workspace, then: an agent-planted symlink that a branch's patch would write through, and an image
 * rewritten in the store with its checksum recomputed beside it.
 */
@Tag("attacks")
@Timeout(180)
class SnapshotStoreAttacksTest {
    @TempDir
    Path tmp;

    // Attack: the agent plants `notes -> /elsewhere` in its workspace; a branch of its snapshot has a patch
    // `notes/hint.txt`, which the restorer (root on the node) writes through the link.
    // Must hold: nothing is written outside the branch's workspace.
    @Test
    void aPatchIsNeverWrittenThroughAnAgentPlantedSymlink() throws Exception {
        HostAssumptions.assumeProcessTools();
        Path root = Files.createDirectories(tmp.resolve("workspaces"));
        Path ws = Files.createDirectories(root.resolve("ws"));
        Path elsewhere = Files.createDirectories(tmp.resolve("elsewhere"));
        Files.createSymbolicLink(ws.resolve("notes"), elsewhere);           // what the agent left behind
        Files.createSymbolicLink(ws.resolve("dangling.txt"), elsewhere.resolve("dangling-target"));
        try (SnapshotEngine engine = new EngineBuilder().store(tmp.resolve("store")).workspaceRoot(root).build();
             MemoryWorkload w = MemoryWorkload.start(8, 0, 10, 0, ws)) {
            engine.snapshot(new SnapshotRequest("planted", "g", TargetSpec.ofPid(w.pid()), null, false, false, ws.toString(),
                    null, null, true), CommitAction.THAW);
            Path branch = root.resolve("branch");
            Throwable t = catchThrowable(() -> engine.restore(new RestoreRequest("planted", branch.toString(), true, false,
                    List.of(new WorkspacePatch("notes/hint.txt", "try the other approach", null),
                            new WorkspacePatch("dangling.txt", "pwned", null)))));
            assertThat(elsewhere.resolve("hint.txt")).as("patch written through the planted link (restore: " + t + ")").doesNotExist();
            assertThat(elsewhere.resolve("dangling-target")).as("patch written through a dangling link (restore: " + t + ")").doesNotExist();
            if (t != null) assertThat(t.getMessage()).as("a refusal names the patch").contains("patches[");
        }
    }

    // Attack: rewrite the stored workspace image and recompute its sha256 in the manifest beside it
    // (whoever can write the store can do both).
    // Must hold: the restore is refused (the manifest is authenticated with a key that is not in the store),
    // and the restore target is left as it was (empty).
    @Test
    void aRewrittenImageWithARecomputedChecksumIsRefused() throws Exception {
        HostAssumptions.assumeProcessTools();
        Path root = Files.createDirectories(tmp.resolve("workspaces"));
        Path ws = Files.createDirectories(root.resolve("ws"));
        Files.writeString(ws.resolve("solution.py"), "print('honest work')\n");
        Path store = tmp.resolve("store");
        try (SnapshotEngine engine = new EngineBuilder().store(store).workspaceRoot(root).build();
             MemoryWorkload w = MemoryWorkload.start(8, 0, 10, 0, ws)) {
            Manifest m = engine.snapshot(new SnapshotRequest("rewritten", "g", TargetSpec.ofPid(w.pid()), null, false, false,
                    ws.toString(), null, null, true), CommitAction.THAW);
            Path snap = store.resolve("snapshots").resolve("rewritten");
            Path archive;
            try (Stream<Path> s = Files.walk(snap)) {
                archive = s.filter(p -> p.getFileName().toString().contains(".tar")).findFirst().orElseThrow();
            }
            String oldSha = sha256(archive);
            // the attacker's workspace, archived the same way, over the original
            Path evil = Files.createDirectories(tmp.resolve("evil"));
            Files.writeString(evil.resolve("solution.py"), "print('attacker memory')\n");
            Path evilTar = tmp.resolve("evil.tar");
            Process tar = new ProcessBuilder("tar", "--create", "--file", evilTar.toString(), "--directory", evil.toString(),
                    "--numeric-owner", ".").inheritIO().start();
            assertThat(tar.waitFor()).isZero();
            Files.copy(evilTar, archive, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            String newSha = sha256(archive);
            for (Path f : manifestFiles(snap)) {
                String json = Files.readString(f);
                Files.writeString(f, json.replace(oldSha, newSha).replaceAll("\"workspaceBytes\"\\s*:\\s*\\d+",
                        "\"workspaceBytes\":" + Files.size(archive)));
            }
            assertThat(m.workspaceSha256).isEqualTo(oldSha);

            Path branch = root.resolve("branch");
            Throwable t = catchThrowable(() -> engine.restore(new RestoreRequest("rewritten", branch.toString(), true, false, List.of())));
            assertThat(t).as("restore of a rewritten image must be refused").isNotNull();
            assertThat(branch.resolve("solution.py")).as("the attacker's image was restored").doesNotExist();
            if (Files.isDirectory(branch)) {
                try (Stream<Path> s = Files.list(branch)) {
                    assertThat(s.toList()).as("a failed restore leaves its target as it was").isEmpty();
                }
            }
        }
    }

    private static List<Path> manifestFiles(Path snap) throws Exception {
        try (Stream<Path> s = Files.walk(snap)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".json")).toList();
        }
    }

    private static String sha256(Path f) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(f)));
    }

}
