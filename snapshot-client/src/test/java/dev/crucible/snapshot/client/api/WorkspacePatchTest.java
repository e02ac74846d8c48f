package dev.crucible.snapshot.client.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkspacePatchTest {

    @TempDir
    Path ws;

    static final String DIFF = """
            --- a/calc.py
            +++ b/calc.py
            @@ -1,2 +1,2 @@
             def divide(a, b):
            -    return a // b
            +    return a / b
            """;

    @Test
    void contentAndDiffApplyInOrder() throws Exception {
        Files.writeString(ws.resolve("calc.py"), "def divide(a, b):\n    return a // b\n");
        WorkspacePatch.applyAll(List.of(new WorkspacePatch(null, null, DIFF),
                new WorkspacePatch("notes/hint.txt", "branch b", null)), ws);
        assertThat(ws.resolve("calc.py")).hasContent("def divide(a, b):\n    return a / b");
        assertThat(ws.resolve("notes/hint.txt")).hasContent("branch b");
    }

    @Test
    void aDiffThatDoesNotApplyNamesItsIndex() throws Exception {
        Files.writeString(ws.resolve("calc.py"), "something else\n");
        assertThatThrownBy(() -> WorkspacePatch.applyAll(List.of(new WorkspacePatch("ok.txt", "x", null),
                new WorkspacePatch(null, null, DIFF)), ws))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("patches[1].diff: does not apply");
    }

    @Test
    void aPathOutsideTheWorkspaceIsRefused() {
        assertThatThrownBy(() -> WorkspacePatch.applyAll(List.of(new WorkspacePatch("../escape.txt", "x", null)), ws))
                .hasMessageContaining("patches[0].path").hasMessageContaining("leaves the workspace");
        assertThat(ws.getParent().resolve("escape.txt")).doesNotExist();
        assertThatThrownBy(() -> WorkspacePatch.applyAll(List.of(new WorkspacePatch("a", "x", "y")), ws))
                .hasMessageContaining("exactly one of diff or content");
    }

    /** Issue 14: an agent plants notes -> /elsewhere; a branch's patch for notes/hint.txt wrote there as root. */
    @Test
    void aPatchThroughAnAgentPlantedLinkIsRefusedAndNothingIsWrittenOutside(@TempDir Path elsewhere) throws Exception {
        Files.createSymbolicLink(ws.resolve("notes"), elsewhere);
        Files.createSymbolicLink(ws.resolve("dang"), elsewhere.resolve("created"));
        assertThatThrownBy(() -> WorkspacePatch.applyAll(List.of(new WorkspacePatch("notes/hint.txt", "x", null)), ws, "spec.patches"))
                .hasMessageStartingWith("spec.patches[0].path: 'notes/hint.txt'").hasMessageContaining("outside the workspace");
        assertThatThrownBy(() -> WorkspacePatch.applyAll(List.of(new WorkspacePatch("dang", "x", null)), ws, "spec.patches"))
                .hasMessageStartingWith("spec.patches[0].path: 'dang'");
        String diff = "--- /dev/null\n+++ b/notes/hint.txt\n@@ -0,0 +1 @@\n+x\n";
        assertThatThrownBy(() -> WorkspacePatch.applyAll(List.of(new WorkspacePatch(null, null, diff)), ws, "spec.patches"))
                .hasMessageStartingWith("spec.patches[0].diff: 'notes/hint.txt'");
        assertThatThrownBy(() -> WorkspacePatch.applyAll(List.of(new WorkspacePatch("a\0b", "x", null)), ws))
                .hasMessage("patches[0].path: 'a\\0b' contains a NUL byte");
        try (var l = Files.list(elsewhere)) {
            assertThat(l).isEmpty();
        }
    }
}
