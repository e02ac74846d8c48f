package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.crucible.verifier.pristine.TreeCopy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** An environment whose code comes from spec.source: a local git repository at a commit, as a one-commit task repository. */
@Timeout(180)
class SourceRunTest {

    @Test
    void theWorkspaceIsTheCommitsTreeWithoutHistory(@TempDir Path dir) throws Exception {
        Path repo = dir.resolve("repo");
        TreeCopy.copy(LocalRuns.example().resolve("workspace"), repo);
        git(repo, "init", "-q");
        git(repo, "add", "-A");
        git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "buggy");
        String sha = new String(new ProcessBuilder("git", "-C", repo.toString(), "rev-parse", "HEAD").start().getInputStream().readAllBytes()).strip();
        // a later commit with the fix must not be reachable from the workspace
        Files.writeString(repo.resolve("FUTURE.txt"), "the fix");
        git(repo, "add", "-A");
        git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "future");

        String env = Files.readString(LocalRuns.example().resolve("environment.yaml"))
                .replace("  workspace:\n    path: ./workspace            # local workspace (used by `crucible run`), relative to this file\n    mountPath: /workspace        # where the workspace lives inside the rollout pod\n",
                        "  source:\n    repo: ./repo\n    commit: " + sha + "\n");
        assertThat(env).contains("repo: ./repo");
        Files.writeString(dir.resolve("environment.yaml"), env);
        LocalRuns.Run r = LocalRuns.run("-f", dir.resolve("environment.yaml").toString(), "--agent-cmd",
                "sh " + LocalRuns.agent("honest.sh"), "--out", dir.resolve("out").toString());
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        JsonNode res = LocalRuns.json(dir.resolve("out/result.json"));
        assertThat(res.path("phase").asText()).isEqualTo("Succeeded");
        assertThat(res.path("reward").asDouble()).isEqualTo(1.0);
        Path ws = Path.of(res.path("workspace").asText());
        assertThat(ws.resolve("FUTURE.txt")).doesNotExist();
        // a fresh one-commit task repository: the later commit is not in it
        assertThat(TaskWorkspaceTest.git(ws, "rev-list", "--all").lines().count()).isEqualTo(1);
        assertThat(TaskWorkspaceTest.git(ws, "log", "--all", "--format=%s").strip()).isEqualTo("task");
    }

    @Test
    void aRemoteRepositoryIsInvalidLocally(@TempDir Path dir) throws Exception {
        String env = Files.readString(LocalRuns.example().resolve("environment.yaml"))
                .replace("  workspace:\n    path: ./workspace            # local workspace (used by `crucible run`), relative to this file\n    mountPath: /workspace        # where the workspace lives inside the rollout pod\n",
                        "  source:\n    repo: https://github.com/example/calc\n    commit: abcdef1\n");
        Files.writeString(dir.resolve("environment.yaml"), env);
        LocalRuns.Run r = LocalRuns.run("-f", dir.resolve("environment.yaml").toString(), "--agent-cmd", "true");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("spec.source.repo").contains("local repository path");
    }

    private static void git(Path repo, String... args) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of("git", "-C", repo.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as(out).isZero();
    }
}
