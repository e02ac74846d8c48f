package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.crucible.api.v1alpha1.rollout.PatchSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** spec.patches on a real workspace copy, with real git apply. */
class RolloutPatchesTest {
    @TempDir
    Path tmp;

    static PatchSpec content(String path, String content) {
        PatchSpec p = new PatchSpec();
        p.path = path;
        p.content = content;
        return p;
    }

    static PatchSpec diff(String diff) {
        PatchSpec p = new PatchSpec();
        p.diff = diff;
        return p;
    }

    @Test
    void aPatchThroughAPlantedLinkIsRefusedNamingTheFieldAndNothingIsWrittenOutside() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Path elsewhere = Files.createDirectories(tmp.resolve("elsewhere"));
        Files.createSymbolicLink(ws.resolve("notes"), elsewhere);
        Files.createSymbolicLink(ws.resolve("dang"), elsewhere.resolve("new"));
        assertThatThrownBy(() -> RolloutPatches.apply(List.of(content("ok.txt", "fine"), content("notes/hint.txt", "x")), ws))
                .hasMessageStartingWith("spec.patches[1].path: 'notes/hint.txt'").hasMessageContaining("outside the workspace");
        assertThatThrownBy(() -> RolloutPatches.apply(List.of(content("dang", "x")), ws)).hasMessageStartingWith("spec.patches[0].path: 'dang'");
        assertThatThrownBy(() -> RolloutPatches.apply(List.of(content("../up", "x")), ws)).hasMessageStartingWith("spec.patches[0].path: '../up'");
        assertThatThrownBy(() -> RolloutPatches.apply(List.of(content("/etc/x", "x")), ws)).hasMessageContaining("is absolute");
        assertThatThrownBy(() -> RolloutPatches.apply(List.of(diff("--- /dev/null\n+++ b/notes/h.txt\n@@ -0,0 +1 @@\n+x\n")), ws))
                .hasMessageStartingWith("spec.patches[0].diff: 'notes/h.txt'");
        try (var l = Files.list(elsewhere)) {
            assertThat(l).isEmpty();
        }
        assertThat(tmp.resolve("up")).doesNotExist();
        assertThat(ws.resolve("ok.txt")).hasContent("fine");
    }

    @Test
    void contentAndDiffsApply() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Files.writeString(ws.resolve("a.py"), "x = 1\n");
        RolloutPatches.apply(List.of(diff("--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"), content("docs/n.md", "n")), ws);
        assertThat(ws.resolve("a.py")).hasContent("x = 2");
        assertThat(ws.resolve("docs/n.md")).hasContent("n");
        assertThatThrownBy(() -> RolloutPatches.apply(List.of(diff("--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 9\n+x = 3\n")), ws))
                .hasMessageStartingWith("spec.patches[0].diff: does not apply");
    }
}
