package dev.crucible.controllers.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.controllers.Fixtures;
import dev.crucible.controllers.config.OperatorSettings;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The workspace-init container's script, run for real (sh, git) on an image folder whose .git holds a
 * later fix: the agent's workspace is a fresh one-commit repository, or with history: ancestors the
 * image's HEAD ancestry, never the later commit.
 */
class WorkspaceInitScriptTest {
    @TempDir
    Path dir;

    /** An "image" folder at the task commit whose .git also has a later fix on another branch; returns [task, fix blob]. */
    private String[] image(Path src) throws Exception {
        Files.createDirectories(src.resolve("calc"));
        Files.writeString(src.resolve("calc/ops.py"), "def divide(a, b):\n    return abs(a) / abs(b)\n");
        git(src, "init", "-q");
        git(src, "symbolic-ref", "HEAD", "refs/heads/main");
        commit(src, "first");
        Files.writeString(src.resolve("README.md"), "calc\n");
        String task = commit(src, "task");
        git(src, "checkout", "-q", "-b", "fix");
        Files.writeString(src.resolve("FIX.txt"), "return a / b\n");
        commit(src, "fix");
        String blob = git(src, "rev-parse", "HEAD:FIX.txt").strip();
        git(src, "checkout", "-q", "main");
        git(src, "remote", "add", "origin", "https://example.invalid/calc.git");
        return new String[] {task, blob};
    }

    private Path run(Path src, String history) throws Exception {
        RLEnvironment env = Fixtures.cpuEnvironment("env");
        if (history != null) {
            env.getSpec().source = new dev.crucible.api.v1alpha1.environment.SourceSpec();
            env.getSpec().source.history = history;
        }
        Rollout r = Fixtures.rollout("r1", "env");
        List<MemberPlan> plan = TopologyPlanner.plan(env.getSpec());
        String script = new RolloutPodBuilder(OperatorSettings.defaults()).build(r, env, plan.get(0), plan, false, null)
                .getSpec().getInitContainers().get(0).getCommand().get(2).replace("/mnt/", dir + "/");
        Files.createDirectories(dir.resolve("workspace"));
        Files.createDirectories(dir.resolve("pristine"));
        ProcessBuilder pb = new ProcessBuilder("sh", "-c", script).redirectErrorStream(true);
        pb.environment().put("SRC", src.toString());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        assertThat(dir.resolve("pristine/calc/ops.py")).exists();
        assertThat(dir.resolve("pristine/.git")).doesNotExist();
        assertThat(dir.resolve("pristine/.crucible-image-git")).doesNotExist();
        return dir.resolve("workspace");
    }

    @Test
    void theImagesHistoryBecomesOneDeterministicCommit() throws Exception {
        String[] t = image(dir.resolve("src"));
        Path ws = run(dir.resolve("src"), null);
        assertThat(git(ws, "rev-list", "--all").lines().count()).isEqualTo(1);
        assertThat(git(ws, "log", "--format=%an <%ae> %ad %s", "--date=iso-strict").strip())
                .isEqualTo("Crucible <task@crucible.invalid> 2000-01-01T00:00:00+00:00 task");
        assertThat(exit(ws, "cat-file", "-e", t[1])).isNotZero();
        assertThat(exit(ws, "cat-file", "-e", t[0])).isNotZero(); // not even the image's own commit: a fresh one
        assertNoExtras(ws);
        assertThat(git(ws, "status", "--porcelain")).isEmpty();
    }

    @Test
    void historyAncestorsKeepsTheImagesHeadAncestryAndNothingBeyond() throws Exception {
        String[] t = image(dir.resolve("src"));
        Path ws = run(dir.resolve("src"), "ancestors");
        assertThat(git(ws, "rev-parse", "HEAD").strip()).isEqualTo(t[0]);
        assertThat(git(ws, "rev-list", "--all").lines().count()).isEqualTo(2);
        assertThat(exit(ws, "cat-file", "-e", t[1])).as("the later fix").isNotZero();
        assertNoExtras(ws);
        assertThat(git(ws, "status", "--porcelain")).isEmpty();
    }

    /**
     * As on a real kubelet: the volume roots are emptyDirs owned by root (mode 0777) and the init
     * container runs as uid 1000, so the script must not try to set the roots' own times or owner.
     */
    @Test
    void fillsRootOwnedVolumesAsANonRootUser() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue("root".equals(System.getProperty("user.name")),
                "needs root to switch to uid 1000 (setpriv)");
        org.junit.jupiter.api.Assumptions.assumeTrue(new java.io.File("/usr/bin/setpriv").canExecute(), "setpriv not installed");
        Path base = Files.createTempDirectory(Path.of("/tmp"), "ws-init-");
        try {
            Path src = base.resolve("src");
            Files.createDirectories(src.resolve("calc"));
            Files.writeString(src.resolve("calc/ops.py"), "x = 1\n");
            Files.writeString(src.resolve(".hidden"), "h\n");
            for (Path d : List.of(base, src, src.resolve("calc"), base.resolve("workspace"), base.resolve("pristine"))) {
                Files.createDirectories(d);
                Files.setPosixFilePermissions(d, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
            }
            Files.setLastModifiedTime(src, java.nio.file.attribute.FileTime.fromMillis(0));
            String script = "set -e; " + WorkspaceInitScript.fill(null).replace("/mnt/", base + "/");
            ProcessBuilder pb = new ProcessBuilder("setpriv", "--reuid", "1000", "--regid", "1000", "--clear-groups",
                    "sh", "-c", script).redirectErrorStream(true);
            pb.environment().put("SRC", src.toString());
            pb.environment().put("HOME", base.toString());
            Process p = pb.start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor()).as(out).isZero();
            assertThat(base.resolve("workspace/calc/ops.py")).hasContent("x = 1");
            assertThat(base.resolve("workspace/.hidden")).exists();
            assertThat(base.resolve("pristine/.hidden")).exists();
        } finally {
            new ProcessBuilder("rm", "-rf", base.toString()).start().waitFor();
        }
    }

    private static void assertNoExtras(Path ws) throws Exception {
        assertThat(git(ws, "for-each-ref", "--format=%(refname)").strip()).isEqualTo("refs/heads/main");
        assertThat(git(ws, "remote").strip()).isEmpty();
        assertThat(ws.resolve(".git/logs")).doesNotExist();
        assertThat(ws.resolve(".git/hooks")).doesNotExist();
        assertThat(ws.resolve(".git/FETCH_HEAD")).doesNotExist();
        assertThat(git(ws, "config", "core.hooksPath").strip()).isEqualTo("/dev/null");
    }

    private static String commit(Path repo, String message) throws Exception {
        git(repo, "add", "-A");
        git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", message);
        return git(repo, "rev-parse", "HEAD").strip();
    }

    private static String git(Path repo, String... args) throws Exception {
        Process p = start(repo, args);
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as("git " + String.join(" ", args) + ": " + out).isZero();
        return out;
    }

    private static int exit(Path repo, String... args) throws Exception {
        Process p = start(repo, args);
        p.getInputStream().readAllBytes();
        return p.waitFor();
    }

    private static Process start(Path repo, String... args) throws java.io.IOException {
        List<String> cmd = new ArrayList<>(List.of("git", "-C", repo.toString()));
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).redirectErrorStream(true).start();
    }
}
