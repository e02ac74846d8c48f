package dev.crucible.verifier.pristine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.verifier.support.Fixtures;
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
}
