package dev.crucible.verifier.toolchain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Setup runs as the launcher in a workspace that belongs to the agent's box uid: real git must still
 * read it there (fatih/color's `go mod tidy; git status -s` step failed with exit 128 before).
 */
class SetupGitTest {
    @Test
    void gitReadsAWorkspaceOwnedByAnotherUid(@TempDir Path dir) throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "not root: cannot give the workspace to another uid");
        Path ws = Files.createDirectories(dir.resolve("workspace"));
        assertThat(run(List.of("git", "init", "-q"), ws, Map.of("PATH", "/usr/bin:/bin")).code).isZero();
        assertThat(run(List.of("chown", "-R", "200123:200123", ws.toString()), dir, Map.of("PATH", "/usr/bin:/bin")).code).isZero();
        ExecEnvironment e = ExecEnvironments.plan("t", "k", Map.of(), Map.of(), false, dir.resolve("cache"),
                InstalledToolchains.machine(),
                Map.of("PATH", "/usr/bin:/bin"));
        Map<String, String> plain = Map.of("PATH", "/usr/bin:/bin", "HOME", dir.toString());

        assertThat(run(List.of("git", "status", "-s"), ws, plain).out).contains("dubious ownership");
        Result r = run(List.of("git", "status", "-s"), ws, e.forSetup());
        assertThat(r.code).as(r.out).isZero();
    }

    private record Result(int code, String out) {}

    private static Result run(List<String> argv, Path cwd, Map<String, String> env) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(argv).directory(cwd.toFile()).redirectErrorStream(true);
        pb.environment().clear();
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(60, TimeUnit.SECONDS);
        return new Result(p.exitValue(), out);
    }
}
