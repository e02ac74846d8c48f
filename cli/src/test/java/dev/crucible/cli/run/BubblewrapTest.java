package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.verifier.pristine.ProtectedPaths;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The bubblewrap command line: what is bound, in which order (later mounts cover earlier ones). */
class BubblewrapTest {

    @Test
    void protectedFoldersAndFilesBecomeReadOnlyBinds(@TempDir Path ws) throws Exception {
        Files.createDirectories(ws.resolve("tests/unit"));
        Files.writeString(ws.resolve("tests/unit/test_a.py"), "");
        Files.writeString(ws.resolve("pytest.ini"), "");
        Files.createDirectories(ws.resolve("pkg"));
        Files.writeString(ws.resolve("pkg/conftest.py"), "");
        Files.writeString(ws.resolve("pkg/code.py"), "");
        List<Path> targets = Bubblewrap.protectedTargets(ws, new ProtectedPaths(List.of("tests/**", "pytest.ini", "**/conftest.py")));
        assertThat(targets).containsExactlyInAnyOrder(ws.resolve("tests"), ws.resolve("pytest.ini"), ws.resolve("pkg/conftest.py"));
    }

    @Test
    void theWorkspaceIsBoundAfterTheFreshTmpAndProtectedPathsAfterTheWorkspace(@TempDir Path dir) throws Exception {
        Path ws = Files.createDirectories(dir.resolve("sandbox/ws"));
        Path state = Files.createDirectories(dir.resolve("state"));
        Bubblewrap b = new Bubblewrap(Path.of("/usr/bin/bwrap"), ws, List.of(dir), List.of(ws.resolve("tests")), List.of(state), List.of());
        List<String> a = b.wrap(List.of("sh", "-c", "true"), ws);
        assertThat(a).containsSubsequence("--die-with-parent", "--new-session", "--unshare-net", "--unshare-pid", "--ro-bind", "/", "/");
        assertThat(a.indexOf("--tmpfs")).isLessThan(a.indexOf("--bind"));
        assertThat(String.join(" ", a)).contains("--bind " + ws + " " + ws + " --ro-bind " + ws.resolve("tests"))
                .contains("--tmpfs " + state).endsWith("--chdir " + ws + " -- sh -c true");
    }
}
