package dev.crucible.snapshot.store;

import dev.crucible.snapshot.client.store.FileDigest;
import dev.crucible.snapshot.client.store.Manifest;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.crucible.snapshot.HostAssumptions;
import dev.crucible.snapshot.client.api.CommitAction;
import dev.crucible.snapshot.engine.EngineBuilder;
import dev.crucible.snapshot.client.api.RestoreRequest;
import dev.crucible.snapshot.engine.SnapshotEngine;
import dev.crucible.snapshot.client.api.SnapshotRequest;
import dev.crucible.snapshot.client.api.TargetSpec;
import dev.crucible.snapshot.workload.MemoryWorkload;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The attack: rewrite a stored image and recompute its sha256 (and the manifest's sums) so the
 * checksums agree. The manifest HMAC, keyed outside the store, still refuses it.
 */
class ManifestSealTest {

    static final ManifestKey KEY = ManifestKey.of("test-key-0123456789abcdef0123456789".getBytes());

    @TempDir
    Path tmp;

    @Test
    void aRewrittenImageWithRecomputedSumsIsRefused() throws Exception {
        HostAssumptions.assumeProcessTools();
        Path root = Files.createDirectories(tmp.resolve("workspaces"));
        Path ws = Files.createDirectories(root.resolve("ws"));
        Files.writeString(ws.resolve("solution.py"), "print('honest')\n");
        try (SnapshotEngine engine = new EngineBuilder().store(tmp.resolve("store")).workspaceRoot(root).manifestKey(KEY).build();
             MemoryWorkload w = MemoryWorkload.start(8, 0, 10, 0, ws)) {
            Manifest m = engine.snapshot(new SnapshotRequest("sealed", "g", TargetSpec.ofPid(w.pid()), null, false, false,
                    ws.toString(), null, null, true), CommitAction.THAW);
            assertThat(m.hmac).hasSize(64);
            // the untouched snapshot restores: the test can fail only because of the rewrite below
            engine.restore(new RestoreRequest("sealed", root.resolve("ok").toString(), true, false));

            Path dir = tmp.resolve("store/snapshots/sealed");
            Path tar = dir.resolve("workspace.tar");
            Path evil = Files.createDirectories(tmp.resolve("evil"));
            Files.writeString(evil.resolve("solution.py"), "print('forged')\n");
            new ProcessBuilder("tar", "-cf", tar.toString(), "-C", evil.toString(), ".").inheritIO().start().waitFor();
            Manifest stored = ManifestFiles.read(dir.resolve(ImageStore.MANIFEST), Manifest.class);
            String sum = DirectoryDigests.sha256(tar);
            stored.files.put("workspace.tar", FileDigest.file(Files.size(tar), sum));
            stored.workspaceSha256 = sum;
            stored.workspaceBytes = Files.size(tar);
            ManifestFiles.writeAtomically(dir.resolve(ImageStore.MANIFEST), stored);
            assertThat(DirectoryDigests.firstMismatch(dir, stored.files)).as("the sums now agree with the files").isNull();

            assertThatThrownBy(() -> engine.restore(new RestoreRequest("sealed", root.resolve("forged").toString(), true, false)))
                    .isInstanceOf(SecurityException.class).hasMessageContaining("HMAC does not match");
            assertThat(root.resolve("forged/solution.py")).doesNotExist();
        }
    }

    @Test
    void anUnlistedFileAmongTheImagesAndAnotherKeyAreRefused() throws Exception {
        HostAssumptions.assumeProcessTools();
        Path root = Files.createDirectories(tmp.resolve("workspaces"));
        Path ws = Files.createDirectories(root.resolve("ws"));
        Files.writeString(ws.resolve("a.txt"), "a");
        try (MemoryWorkload w = MemoryWorkload.start(8, 0, 10, 0, ws)) {
            try (SnapshotEngine engine = new EngineBuilder().store(tmp.resolve("store")).workspaceRoot(root).manifestKey(KEY).build()) {
                engine.snapshot(new SnapshotRequest("extra", "g", TargetSpec.ofPid(w.pid()), null, false, false,
                        ws.toString(), null, null, true), CommitAction.THAW);
                Files.writeString(tmp.resolve("store/snapshots/extra/pages-9.img"), "planted");
                assertThatThrownBy(() -> engine.restore(new RestoreRequest("extra", root.resolve("o1").toString(), true, false)))
                        .hasMessageContaining("pages-9.img: not in the manifest");
                Files.delete(tmp.resolve("store/snapshots/extra/pages-9.img"));
            }
            ManifestKey other = ManifestKey.of("another-key-0123456789abcdef012345".getBytes());
            try (SnapshotEngine engine = new EngineBuilder().store(tmp.resolve("store")).workspaceRoot(root).manifestKey(other).build()) {
                assertThatThrownBy(() -> engine.restore(new RestoreRequest("extra", root.resolve("o2").toString(), true, false)))
                        .isInstanceOf(SecurityException.class).hasMessageContaining("HMAC");
            }
        }
    }

    @Test
    void theLocalKeyIsCreatedOwnerOnlyAndMayNotLieInTheStore() throws Exception {
        Path key = tmp.resolve("config/crucible/snapshot-hmac.key");
        ManifestKey k = ManifestKey.fromFileCreating(key);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(key))).isEqualTo("rw-------");
        assertThat(ManifestKey.fromFileCreating(key).bytes()).isEqualTo(k.bytes());
        Path store = Files.createDirectories(tmp.resolve("store"));
        ManifestKey inside = ManifestKey.fromFileCreating(store.resolve("k"));
        assertThatThrownBy(() -> inside.requireOutside(store)).hasMessageContaining("lies inside the image store");
        assertThatThrownBy(() -> new EngineBuilder().store(store).manifestKey(inside).build())
                .hasMessageContaining("lies inside the image store");
        List.of(k).forEach(x -> x.requireOutside(store));
    }
}
