package dev.crucible.snapshot.store;

import dev.crucible.snapshot.client.store.Manifest;
import dev.crucible.snapshot.client.store.SnapshotId;
import dev.crucible.snapshot.client.store.SnapshotState;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ImageStoreTest {

    @TempDir
    Path tmp;

    @Test
    void createsListsAndRefusesToOverwrite() {
        ImageStore store = new ImageStore(tmp.resolve("store"));
        store.create(Manifest.preparing(SnapshotId.of("s1"), "g", "pid 1"));
        assertThat(store.list()).extracting(m -> m.id).containsExactly("s1");
        assertThat(store.require(SnapshotId.of("s1")).state).isEqualTo(SnapshotState.PREPARING);
        assertThatThrownBy(() -> store.create(Manifest.preparing(SnapshotId.of("s1"), "g", "pid 1")))
                .hasMessageContaining("already exists");
        assertThatThrownBy(() -> store.require(SnapshotId.of("nope"))).isInstanceOf(SnapshotNotFoundException.class);
    }

    @Test
    void pathsInsideASnapshotCannotEscapeLexicallyOrThroughSymlinks() throws Exception {
        ImageStore store = new ImageStore(tmp.resolve("store"));
        store.create(Manifest.preparing(SnapshotId.of("s1"), null, "pid 1"));
        assertThatThrownBy(() -> store.inSnapshot(SnapshotId.of("s1"), "../../outside")).isInstanceOf(PathEscapeException.class);
        assertThatThrownBy(() -> store.inSnapshot(SnapshotId.of("s1"), "/etc/passwd")).isInstanceOf(PathEscapeException.class);
        Path outside = Files.createDirectories(tmp.resolve("outside"));
        Files.createSymbolicLink(store.snapshotDir(SnapshotId.of("s1")).resolve("evil"), outside);
        assertThatThrownBy(() -> store.inSnapshot(SnapshotId.of("s1"), "evil/file")).isInstanceOf(PathEscapeException.class)
                .hasMessageContaining("resolves outside");
        assertThat(store.inSnapshot(SnapshotId.of("s1"), "images/final")).startsWithRaw(store.root());
    }

    @Test
    void deleteRemovesLinksNotWhatTheyPointTo() throws Exception {
        ImageStore store = new ImageStore(tmp.resolve("store"));
        store.create(Manifest.preparing(SnapshotId.of("s1"), null, "pid 1"));
        Path precious = Files.writeString(tmp.resolve("precious.txt"), "keep me");
        Files.createSymbolicLink(store.snapshotDir(SnapshotId.of("s1")).resolve("link"), precious);
        assertThat(store.delete(SnapshotId.of("s1"))).isTrue();
        assertThat(precious).hasContent("keep me");
        assertThat(store.list()).isEmpty();
    }

    @Test
    void checksumsDetectTampering() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("snap"));
        Files.createDirectories(dir.resolve("images/pre-1"));
        Files.createDirectories(dir.resolve("images/final"));
        Files.writeString(dir.resolve("images/final/pages-1.img"), "pages");
        Files.createSymbolicLink(dir.resolve("images/final/parent"), Path.of("../pre-1"));
        Files.createDirectories(dir.resolve("logs"));
        Files.writeString(dir.resolve("logs/dump.log"), "not checksummed");
        var digests = DirectoryDigests.compute(dir, Set.of("logs", "manifest.json"));
        assertThat(digests).containsOnlyKeys("images/final/pages-1.img", "images/final/parent");
        assertThat(digests.get("images/final/parent").linkTarget()).isEqualTo("../pre-1");
        assertThat(DirectoryDigests.firstMismatch(dir, digests)).isNull();
        Files.writeString(dir.resolve("images/final/pages-1.img"), "PAGES");
        assertThat(DirectoryDigests.firstMismatch(dir, digests)).contains("sha256 mismatch");
    }
}
