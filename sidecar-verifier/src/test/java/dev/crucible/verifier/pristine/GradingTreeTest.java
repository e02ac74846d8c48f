package dev.crucible.verifier.pristine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.verifier.support.Fixtures;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the grading tree takes from the workspace: build caches tagged as such stay out; a folder merely named target does not. */
class GradingTreeTest {
    @TempDir
    Path dir;

    @Test
    void aTaggedBuildCacheIsNotCopiedIntoTheGradingTree() {
        Path ws = dir.resolve("ws");
        Fixtures.write(ws.resolve("src/lib.rs"), "pub fn f() {}\n");
        Fixtures.write(ws.resolve("tests/it.rs"), "#[test] fn t() {}\n");
        // what cargo leaves after the agent's own builds
        Fixtures.write(ws.resolve("target/CACHEDIR.TAG"), "Signature: 8a477f597d28d172789f06886806bc55\n");
        Fixtures.write(ws.resolve("target/debug/deps/libbig.rlib"), "x".repeat(4096));
        Fixtures.write(ws.resolve("docs/target/page.md"), "a folder named target, not a cache\n");
        PristineSnapshot pristine = PristineSnapshot.take(ws, new ProtectedPaths(List.of("tests/**")), dir.resolve("pristine"));
        Path grade = dir.resolve("grade-1");
        GradingTree.build(ws, pristine, grade, null, null);
        assertThat(grade.resolve("src/lib.rs")).exists();
        assertThat(grade.resolve("tests/it.rs")).exists();
        assertThat(grade.resolve("docs/target/page.md")).exists();
        assertThat(grade.resolve("target")).doesNotExist();
    }

    /**
     * Blind host round 5, B2: 30,000 empty files with 255-byte names that are not UTF-8. Named by their text (each 0xff
     * decoded as U+FFFD, three bytes again), the copy's name was too long: the build threw, and the run was "Failed: could
     * not prepare grading" with reward 0. The agent's files are graded under their own bytes; a link so named is left out
     * and listed (its containment is checked by name).
     */
    @Test
    void filesAndFoldersWith255ByteNamesThatAreNotUtf8AreGradedUnderTheirOwnBytes() throws Exception {
        Path ws = dir.resolve("ws");
        Fixtures.write(ws.resolve("calc/ops.py"), "def f():\n    return 1\n");
        Fixtures.write(ws.resolve("tests/test_ops.py"), "def test_f():\n    pass\n");
        PristineSnapshot pristine = PristineSnapshot.take(ws, new ProtectedPaths(List.of("tests/**")), dir.resolve("pristine"));
        Path junk = Files.createDirectories(ws.resolve("junk"));
        for (int i = 0; i < 3; i++) Files.createFile(odd(junk, i));
        Path oddDir = Files.createDirectory(odd(ws, 7));
        Files.writeString(oddDir.resolve("in.py"), "x = 1\n");
        Files.createSymbolicLink(odd(ws, 8), Path.of("calc/ops.py"));
        Path grade = dir.resolve("grade-1");
        GradingTree.Built b = GradingTree.build(ws, pristine, grade, null, null);
        for (int i = 0; i < 3; i++) assertThat(grade.resolve(ws.relativize(odd(junk, i)))).exists();
        assertThat(grade.resolve(ws.relativize(oddDir)).resolve("in.py")).hasContent("x = 1\n");
        assertThat(grade.resolve("calc/ops.py")).exists();
        assertThat(grade.resolve(ws.relativize(odd(ws, 8)))).doesNotExist();
        assertThat(b.dropped()).singleElement().satisfies(d -> assertThat(d).endsWith("00000008: its name is not valid UTF-8; not copied (host code cannot name such a file)"));
    }

    /** A 255-byte name in {@code dir}: 247 bytes 0xff (no UTF-8) and 8 digits, made by bytes through a file URI. */
    static Path odd(Path dir, int i) {
        return Path.of(URI.create(dir.toUri().toString().replaceAll("/?$", "/") + "%FF".repeat(247) + String.format("%08d", i)));
    }
}
