package dev.crucible.verifier.pristine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.verifier.Environment;
import dev.crucible.verifier.support.Fixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The revert policy puts protected files back; a protected folder an agent turned into a link out is never written through. */
class PristineRestoreTest {
    @TempDir
    Path dir;

    @Test
    void restoreNeverWritesThroughALinkOutOfTheWorkspace() throws Exception {
        Environment env = Environment.load(Fixtures.copyExample(dir.resolve("env")));
        Path ws = env.workspacePath().orElseThrow();
        PristineSnapshot pristine = PristineSnapshot.take(ws, ProtectedPaths.of(env.verifier()), dir.resolve("pristine"));
        String original = Files.readString(ws.resolve("tests/test_ops.py"));

        Path outside = Files.createDirectories(dir.resolve("outside"));
        Files.writeString(outside.resolve("test_ops.py"), "host file\n");
        Fixtures.deleteTree(ws.resolve("tests"));
        Files.createSymbolicLink(ws.resolve("tests"), outside);
        Files.writeString(ws.resolve("conftest.py"), "# added\n");
        pristine.restore(ws);

        assertThat(outside.resolve("test_ops.py")).hasContent("host file");
        try (var l = Files.list(outside)) {
            assertThat(l).hasSize(1);
        }
        assertThat(ws.resolve("conftest.py")).doesNotExist(); // what can be restored inside still is

        // a link to a file, in a real folder: the link is replaced by the pristine file, its target untouched
        Files.delete(ws.resolve("tests"));
        Files.createDirectories(ws.resolve("tests"));
        Files.createSymbolicLink(ws.resolve("tests/test_ops.py"), outside.resolve("test_ops.py"));
        pristine.restore(ws);
        assertThat(Files.isSymbolicLink(ws.resolve("tests/test_ops.py"))).isFalse();
        assertThat(Files.readString(ws.resolve("tests/test_ops.py"))).isEqualTo(original);
        assertThat(outside.resolve("test_ops.py")).hasContent("host file");
    }
}
