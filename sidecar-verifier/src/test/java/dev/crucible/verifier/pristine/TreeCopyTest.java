package dev.crucible.verifier.pristine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The workspace copier on a tree an agent wrote: links stay links, nothing outside is read or changed. */
class TreeCopyTest {
    @TempDir
    Path tmp;

    @Test
    void linksAreCopiedAsLinksNeverFollowed() throws Exception {
        Path outside = Files.createDirectories(tmp.resolve("outside"));
        Files.writeString(outside.resolve("secret"), "host secret");
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Files.writeString(ws.resolve("a.txt"), "a");
        Files.createSymbolicLink(ws.resolve("leak"), outside.resolve("secret"));
        Files.createSymbolicLink(ws.resolve("dir-out"), outside);
        Files.createSymbolicLink(ws.resolve("inside"), Path.of("a.txt"));
        Path copy = tmp.resolve("copy");
        TreeCopy.copy(ws, copy);
        assertThat(Files.isSymbolicLink(copy.resolve("leak"))).isTrue();
        assertThat(Files.readSymbolicLink(copy.resolve("leak"))).isEqualTo(outside.resolve("secret"));
        assertThat(Files.isSymbolicLink(copy.resolve("dir-out"))).isTrue();
        assertThat(Files.readSymbolicLink(copy.resolve("inside"))).isEqualTo(Path.of("a.txt"));
        assertThat(copy.resolve("a.txt")).hasContent("a");
    }

    @Test
    void deleteNeitherFollowsNorChmodsThroughLinks() throws Exception {
        Path outside = Files.createDirectories(tmp.resolve("outside"));
        Path target = Files.writeString(outside.resolve("readonly"), "r");
        Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("r--r--r--"));
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Files.createSymbolicLink(ws.resolve("l"), target);
        Files.createSymbolicLink(ws.resolve("d"), outside);
        TreeCopy.deleteContents(ws);
        assertThat(ws).isEmptyDirectory();
        assertThat(target).hasContent("r");
        assertThat(Files.getPosixFilePermissions(target)).isEqualTo(PosixFilePermissions.fromString("r--r--r--"));
    }

    @Test
    void aCopyIntoItsOwnSourceIsRefused() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Files.writeString(ws.resolve("a.txt"), "a");
        assertThatThrownBy(() -> TreeCopy.copy(ws, ws.resolve("out/sandbox/ws"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("inside it");
        assertThat(ws.resolve("out")).doesNotExist();
    }
}
