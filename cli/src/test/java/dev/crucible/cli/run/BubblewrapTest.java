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
    void theAgentSeesTheFilesItsCommandNamesButNotTheirFolder(@TempDir Path dir) throws Exception {
        Path manifestDir = Files.createDirectories(dir.resolve("env/agents"));
        Files.writeString(manifestDir.resolve("honest.sh"), "echo hi");
        Path attempt = Files.createDirectories(dir.resolve("out"));
        Path ws = Files.createDirectories(attempt.resolve("workspace"));
        Files.createSymbolicLink(attempt.resolve("agents"), manifestDir);
        var files = SandboxChooser.commandFiles(List.of("sh", "-c", "sh ../agents/honest.sh && cat ./x"), ws);
        assertThat(files).containsEntry(manifestDir.resolve("honest.sh").toRealPath(), attempt.resolve("agents/honest.sh"))
                .doesNotContainKey(manifestDir).hasSize(1);
    }
}
