package dev.crucible.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real files and real links: each attack an agent can plant in its workspace before a write. */
class ContainedRootTest {
    @TempDir
    Path tmp;
    Path ws;
    Path outside;
    ContainedRoot root;

    @BeforeEach
    void setUp() throws Exception {
        ws = Files.createDirectory(tmp.resolve("ws"));
        outside = Files.createDirectory(tmp.resolve("outside"));
        root = ContainedRoot.of(ws);
    }

    @Test
    void aDanglingLinkIsNotWrittenThrough() throws Exception {
        Files.createSymbolicLink(ws.resolve("dang"), outside.resolve("x"));
        assertThatThrownBy(() -> root.write("dang", bytes("pwned"), "args.path"))
                .isInstanceOf(UnsafePathException.class).hasMessageStartingWith("args.path: 'dang'").hasMessageContaining("outside the root");
        assertThat(outside.resolve("x")).doesNotExist();
    }

    @Test
    void aDanglingLinkInsideTheRootIsRefusedToo() throws Exception {
        Files.createSymbolicLink(ws.resolve("dang"), Path.of("missing/file"));
        assertThatThrownBy(() -> root.write("dang", bytes("x"), "f")).isInstanceOf(UnsafePathException.class).hasMessageContaining("dangling");
        assertThat(ws.resolve("missing")).doesNotExist();
    }

    @Test
    void anIntermediateLinkOutOfTheRootIsRefusedAndNothingIsCreatedOutside() throws Exception {
        Files.createSymbolicLink(ws.resolve("notes"), outside);
        assertThatThrownBy(() -> root.write("notes/sub/hint.txt", bytes("x"), "spec.patches[0].path"))
                .isInstanceOf(UnsafePathException.class).hasMessageStartingWith("spec.patches[0].path: ");
        assertThatThrownBy(() -> root.resolve("notes/secret", "args.path")).isInstanceOf(UnsafePathException.class);
        try (var s = Files.list(outside)) {
            assertThat(s).isEmpty();
        }
    }

    @Test
    void aRelativeLinkThatClimbsOutIsRefused() throws Exception {
        Files.createDirectories(ws.resolve("a"));
        Files.createSymbolicLink(ws.resolve("a/up"), Path.of("../../outside"));
        assertThatThrownBy(() -> root.write("a/up/f", bytes("x"), "f")).isInstanceOf(UnsafePathException.class).hasMessageContaining("'..'");
        assertThat(outside.resolve("f")).doesNotExist();
    }

    @Test
    void linksThatStayInsideWork() throws Exception {
        Files.createDirectories(ws.resolve("src"));
        Files.writeString(ws.resolve("src/real.txt"), "hello");
        Files.createSymbolicLink(ws.resolve("rel"), Path.of("src/real.txt"));
        Files.createSymbolicLink(ws.resolve("abs"), ws.resolve("src"));
        Files.createSymbolicLink(ws.resolve("src/loop-free"), Path.of("../src"));
        assertThat(root.resolve("rel", "f")).isEqualTo(ws.toRealPath().resolve("src/real.txt"));
        try (var in = root.openRead("abs/loop-free/real.txt", "f")) {
            assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("hello");
        }
        root.write("rel", bytes("changed"), "f");
        assertThat(Files.readString(ws.resolve("src/real.txt"))).isEqualTo("changed");
        assertThat(Files.isSymbolicLink(ws.resolve("rel"))).isTrue();
    }

    @Test
    void badTextIsRefusedWithTheField() {
        assertThatThrownBy(() -> root.resolve("a\0b", "args.path")).isInstanceOf(UnsafePathException.class)
                .hasMessage("args.path: 'a\\0b' contains a NUL byte");
        assertThatThrownBy(() -> root.resolve("../x", "args.path")).hasMessageStartingWith("args.path: '../x' leaves the root");
        assertThatThrownBy(() -> root.resolve("a/../../x", "args.path")).hasMessageContaining("leaves the root");
        assertThatThrownBy(() -> root.resolve("/etc/passwd", "args.path")).hasMessageContaining("is absolute");
        assertThatThrownBy(() -> root.resolve("", "args.path")).hasMessageContaining("is empty");
        assertThatThrownBy(() -> root.write(".", bytes("x"), "args.path")).hasMessageContaining("root itself");
    }

    @Test
    void aLinkLoopIsRefused() throws Exception {
        Files.createSymbolicLink(ws.resolve("a"), Path.of("b"));
        Files.createSymbolicLink(ws.resolve("b"), Path.of("a"));
        assertThatThrownBy(() -> root.resolve("a/x", "f")).isInstanceOf(UnsafePathException.class).hasMessageContaining("too many levels");
    }

    @Test
    void missingParentsAreCreatedAndAFileIsNotADirectory() throws Exception {
        root.write("a/b/c.txt", bytes("x"), "f");
        assertThat(ws.resolve("a/b/c.txt")).hasContent("x");
        assertThatThrownBy(() -> root.write("a/b/c.txt/d", bytes("x"), "f")).isInstanceOf(NoSuchFileException.class);
        assertThatThrownBy(() -> root.resolve("nope/x", "f")).isInstanceOf(NoSuchFileException.class);
    }

    @Test
    void readingAFinalLinkOutIsRefused() throws Exception {
        Files.writeString(outside.resolve("secret"), "s");
        Files.createSymbolicLink(ws.resolve("s"), outside.resolve("secret"));
        assertThatThrownBy(() -> root.openRead("s", "args.path")).isInstanceOf(UnsafePathException.class);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
