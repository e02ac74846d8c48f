package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.cli.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** spec.workspace.path may not be /, the checkout's root, a folder holding the manifest, the hidden tests or the output: validate and run refuse. */
@Timeout(120)
class WorkspacePathCheckTest {

    private static Path environment(Path dir, String workspacePath, String hidden) throws Exception {
        Files.createDirectories(dir);
        Path m = dir.resolve("environment.yaml");
        Files.writeString(m, """
                apiVersion: crucible.dev/v1alpha1
                kind: RLEnvironment
                metadata:
                  name: calc
                spec:
                  workspace:
                    path: %s
                  task:
                    prompt: fix divide
                  verifier:
                    type: test-suite
                    framework: pytest
                    command: python3 -m pytest -q
                %s""".formatted(workspacePath, hidden == null ? "" : "    hiddenTests:\n      path: " + hidden + "\n"));
        return m;
    }

    record Both(LocalRuns.Run validate, LocalRuns.Run run) {}

    private static Both check(Path manifest, Path out) {
        StringWriter o = new StringWriter();
        StringWriter e = new StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setOut(new PrintWriter(o, true));
        cl.setErr(new PrintWriter(e, true));
        int exit = cl.execute("validate", "-f", manifest.toString(), "--out", out.toString());
        return new Both(new LocalRuns.Run(exit, o.toString(), e.toString()),
                LocalRuns.run("-f", manifest.toString(), "--agent-cmd", "true", "--out", out.toString()));
    }

    private static void assertRefused(Both b, String why) {
        for (LocalRuns.Run r : new LocalRuns.Run[] {b.validate(), b.run()}) {
            assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(2);
            assertThat(r.err()).contains("spec.workspace.path").contains(why);
        }
        assertThat(b.run().err()).contains("nothing was run");
    }

    @Test
    void theFilesystemRootIsRefused(@TempDir Path dir) throws Exception {
        assertRefused(check(environment(dir, "/", null), dir.resolve("out")), "filesystem root");
    }

    @Test
    void theManifestsOwnFolderIsRefusedAndNeverCopied(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("out");
        assertRefused(check(environment(dir, ".", null), out), "holds this manifest");
        assertThat(out.resolve("sandbox")).doesNotExist();
    }

    @Test
    void anAncestorOfTheOutputFolderIsRefused(@TempDir Path dir) throws Exception {
        Files.createDirectories(dir.resolve("ws"));
        Path m = environment(dir.resolve("envs"), "../ws", null);
        assertRefused(check(m, dir.resolve("ws/results/run1")), "output folder");
        assertRefused(check(m, dir.resolve("ws")), "output folder");
        // the same workspace with --out elsewhere is fine
        Both ok = check(m, dir.resolve("out"));
        assertThat(ok.validate().exit()).as(ok.validate().err()).isZero();
    }

    @Test
    void theRootOfTheManifestsGitCheckoutIsRefused(@TempDir Path dir) throws Exception {
        Path repo = dir.resolve("repo");
        Files.createDirectories(repo.resolve("envs"));
        TaskWorkspaceTest.git(repo, "init", "-q");
        Path m = environment(repo.resolve("envs"), "..", null);
        assertRefused(check(m, dir.resolve("out")), "root of the git checkout");
    }

    @Test
    void aWorkspaceHoldingTheHiddenTestsIsRefused(@TempDir Path dir) throws Exception {
        Files.createDirectories(dir.resolve("ws/hidden"));
        Path m = environment(dir.resolve("envs"), "../ws", "../ws/hidden");
        assertRefused(check(m, dir.resolve("out")), "hidden tests");
    }
}
