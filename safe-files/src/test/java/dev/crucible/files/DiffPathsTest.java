package dev.crucible.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DiffPathsTest {
    @TempDir
    Path tmp;

    static String diff(String from, String to) {
        return "--- " + from + "\n+++ " + to + "\n@@ -0,0 +1 @@\n+x\n";
    }

    @Test
    void namesEveryTouchedFile() throws Exception {
        ContainedRoot root = ContainedRoot.of(tmp);
        assertThat(DiffPaths.check(root, "diff --git a/x.txt b/y.txt\nrename from x.txt\nrename to y.txt\n" + diff("a/src/m.py\t2020-01-01", "b/src/m.py"), "f"))
                .containsExactly("x.txt", "y.txt", "src/m.py");
        assertThat(DiffPaths.check(root, diff("/dev/null", "b/new/dir/f"), "f")).containsExactly("new/dir/f");
    }

    @Test
    void refusesEscapesLinksAndLinkCreation() throws Exception {
        Path ws = Files.createDirectory(tmp.resolve("ws"));
        Path outside = Files.createDirectory(tmp.resolve("outside"));
        Files.createSymbolicLink(ws.resolve("notes"), outside);
        ContainedRoot root = ContainedRoot.of(ws, "workspace");
        assertThatThrownBy(() -> DiffPaths.check(root, diff("a/notes/hint.txt", "b/notes/hint.txt"), "spec.patches[1].diff"))
                .isInstanceOf(UnsafePathException.class).hasMessageStartingWith("spec.patches[1].diff: 'notes/hint.txt'");
        assertThatThrownBy(() -> DiffPaths.check(root, diff("a/../x", "b/../x"), "f")).hasMessageContaining("'..'");
        assertThatThrownBy(() -> DiffPaths.check(root, diff("/etc/passwd", "/etc/passwd"), "f")).hasMessageContaining("absolute");
        assertThatThrownBy(() -> DiffPaths.check(root, "diff --git a/l b/l\nnew file mode 120000\n", "f")).hasMessageContaining("symbolic link");
    }
}
