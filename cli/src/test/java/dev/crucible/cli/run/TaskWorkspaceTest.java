package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.api.v1alpha1.rollout.RolloutSpec;
import dev.crucible.verifier.pristine.TreeCopy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's workspace is a fresh one-commit git repository of the task's tree, with real git: no later
 * commit's objects, no other refs, no reflog, no remote, no hooks; history only when asked, and then
 * nothing beyond the task commit.
 */
@Timeout(120)
class TaskWorkspaceTest {
    private static final String ENV_HEAD = """
            apiVersion: crucible.dev/v1alpha1
            kind: RLEnvironment
            metadata:
              name: calc
            spec:
            """;
    private static final String ENV_TAIL = """
              task:
                prompt: fix divide
              verifier:
                type: test-suite
                framework: pytest
                command: python3 -m pytest -q -p no:cacheprovider
            """;

    @Test
    void aWorkspaceFolderWithItsOwnHistoryBecomesOneCommitWithoutTheLaterFix(@TempDir Path dir) throws Exception {
        Path ws = dir.resolve("workspace");
        TreeCopy.copy(LocalRuns.example().resolve("workspace"), ws);
        git(ws, "init", "-q", "-b", "main");
        commit(ws, "buggy");
        String fixBlob = laterFix(ws);               // a later commit on main and a fix branch
        git(ws, "checkout", "-q", "HEAD~1");           // the task is the buggy tree
        git(ws, "remote", "add", "origin", "https://example.invalid/calc.git");
        Files.writeString(ws.resolve(".git/hooks/post-commit"), "#!/bin/sh\ntouch /tmp/crucible-hook-ran\n");
        Path manifest = manifest(dir, "  workspace:\n    path: ./workspace\n");

        Path a = prepare(manifest, dir.resolve("out/a"));
        assertOneCommitRepository(a, fixBlob);
        assertThat(a.resolve("calc/ops.py")).exists();
        assertThat(Files.readString(a.resolve("calc/ops.py"))).contains("abs(a) / abs(b)");
        // deterministic: the same tree gives the same task commit id, attempt after attempt
        Path b = prepare(manifest, dir.resolve("out/b"));
        assertThat(head(b)).isEqualTo(head(a));
        // the original's history is untouched
        assertThat(git(ws, "rev-list", "--all").lines().count()).isEqualTo(2);
    }

    @Test
    void aSourceCommitBecomesOneCommitWithoutLaterCommitsOrBranches(@TempDir Path dir) throws Exception {
        Path repo = dir.resolve("repo");
        TreeCopy.copy(LocalRuns.example().resolve("workspace"), repo);
        git(repo, "init", "-q", "-b", "main");
        String task = commit(repo, "buggy");
        String fixBlob = laterFix(repo);
        Path manifest = manifest(dir, "  source:\n    repo: ./repo\n    commit: " + task + "\n");

        Path ws = prepare(manifest, dir.resolve("out"));
        assertOneCommitRepository(ws, fixBlob);
        assertThat(git(ws, "ls-tree", "-r", "--name-only", "HEAD")).isEqualTo(git(repo, "ls-tree", "-r", "--name-only", task));
        assertThat(ws.resolve("FIX.txt")).doesNotExist();
    }

    @Test
    void theNewestTagBehindTheTaskCommitIsCarriedByNameAndNoLaterOne(@TempDir Path dir) throws Exception {
        Path repo = dir.resolve("repo");
        TreeCopy.copy(LocalRuns.example().resolve("workspace"), repo);
        git(repo, "init", "-q", "-b", "main");
        commit(repo, "first");
        git(repo, "tag", "v1.1.0");
        Files.writeString(repo.resolve("NOTES.md"), "second\n");
        commit(repo, "second");
        git(repo, "tag", "v1.2.0");
        Files.writeString(repo.resolve("NOTES.md"), "third\n");
        String task = commit(repo, "third");
        String fixBlob = laterFix(repo);
        git(repo, "tag", "v1.3.0", "fix");
        Path manifest = manifest(dir, "  source:\n    repo: ./repo\n    commit: " + task + "\n");

        Path ws = prepare(manifest, dir.resolve("out"));
        assertThat(git(ws, "for-each-ref", "--format=%(refname)").lines().toList()).containsExactly("refs/heads/main", "refs/tags/v1.2.0");
        assertThat(git(ws, "describe", "--tags").strip()).isEqualTo("v1.2.0"); // what setuptools_scm reads
        assertThat(git(ws, "rev-list", "--all").lines().count()).isEqualTo(1);
        assertThat(exit(ws, "cat-file", "-e", fixBlob)).isNotZero();
    }

    @Test
    void aRepositorysOwnWorkTreeAsWorkspaceCarriesTheTagBehindTheTaskCommit(@TempDir Path dir) throws Exception {
        // what derive writes for a local repository: workspace.path is its work tree, source.commit the task
        Path repo = dir.resolve("repo");
        TreeCopy.copy(LocalRuns.example().resolve("workspace"), repo);
        git(repo, "init", "-q", "-b", "main");
        commit(repo, "first");
        git(repo, "tag", "1.1.0");
        Files.writeString(repo.resolve("NOTES.md"), "second\n");
        String task = commit(repo, "second");
        String fixBlob = laterFix(repo);
        git(repo, "tag", "1.2.0", "fix");
        git(repo, "checkout", "-q", task);
        Path manifest = manifest(dir, "  workspace:\n    path: ./repo\n  source:\n    repo: ./repo\n    commit: " + task + "\n");

        Path ws = prepare(manifest, dir.resolve("out"));
        assertThat(git(ws, "for-each-ref", "--format=%(refname)").lines().toList()).containsExactly("refs/heads/main", "refs/tags/1.1.0");
        assertThat(git(ws, "describe", "--tags").strip()).isEqualTo("1.1.0");
        assertThat(exit(ws, "cat-file", "-e", fixBlob)).isNotZero();
    }

    @Test
    void historyOptInKeepsTheAncestryAndStopsAtTheTaskCommit(@TempDir Path dir) throws Exception {
        Path repo = dir.resolve("repo");
        TreeCopy.copy(LocalRuns.example().resolve("workspace"), repo);
        git(repo, "init", "-q", "-b", "main");
        String first = commit(repo, "first");
        Files.writeString(repo.resolve("NOTES.md"), "second\n");
        String task = commit(repo, "second");
        String fixBlob = laterFix(repo);
        git(repo, "tag", "v-fix", "fix");
        Path manifest = manifest(dir, "  source:\n    repo: ./repo\n    commit: " + task + "\n    history: ancestors\n");

        Path ws = prepare(manifest, dir.resolve("out"));
        assertThat(head(ws)).isEqualTo(task);
        assertThat(git(ws, "rev-list", "--all").lines().toList()).containsExactly(task, first);
        assertNothingBeyond(ws, fixBlob);
        assertThat(git(ws, "status", "--porcelain")).isEmpty();
    }

    @Test
    void theCopyNeverDescendsIntoItsOwnOutput(@TempDir Path dir) throws Exception {
        Path src = dir.resolve("src");
        Files.createDirectories(src.resolve("pkg"));
        Files.writeString(src.resolve("pkg/a.py"), "x = 1\n");
        Path out = src.resolve("out");
        WorkspaceCopy.copy(src, out.resolve("sandbox/workspace"), List.of(out));
        assertThat(out.resolve("sandbox/workspace/pkg/a.py")).exists();
        assertThat(out.resolve("sandbox/workspace/out")).doesNotExist();
    }

    private static void assertOneCommitRepository(Path ws, String laterBlob) throws Exception {
        assertThat(git(ws, "rev-list", "--all").lines().count()).isEqualTo(1);
        assertThat(git(ws, "log", "--format=%an <%ae> %ad %s", "--date=iso-strict").strip())
                .isEqualTo("Crucible <task@crucible.invalid> 2000-01-01T00:00:00+00:00 task");
        assertNothingBeyond(ws, laterBlob);
        assertThat(git(ws, "status", "--porcelain")).isEmpty();
    }

    /** No object of the later fix, one ref, no reflog, no remote, no FETCH_HEAD, hooks off. */
    private static void assertNothingBeyond(Path ws, String laterBlob) throws Exception {
        assertThat(exit(ws, "cat-file", "-e", laterBlob)).as("the later fix's blob is not in the workspace's objects").isNotZero();
        assertThat(git(ws, "for-each-ref", "--format=%(refname)").strip()).isEqualTo("refs/heads/main");
        assertThat(git(ws, "remote").strip()).isEmpty();
        assertThat(ws.resolve(".git/logs")).doesNotExist();
        assertThat(ws.resolve(".git/FETCH_HEAD")).doesNotExist();
        assertThat(ws.resolve(".git/hooks")).doesNotExist();
        assertThat(git(ws, "config", "core.hooksPath").strip()).isEqualTo("/dev/null");
        try (var all = Files.walk(ws.resolve(".git"))) {
            assertThat(all.filter(Files::isRegularFile).map(Path::toString).toList()).noneMatch(p -> p.contains("hook"));
        }
    }

    /** Commits a fix on a branch and fast-forwards main to it (a later commit); returns the fixed file's blob id, in no earlier commit. */
    private static String laterFix(Path repo) throws Exception {
        git(repo, "checkout", "-q", "-b", "fix");
        Files.writeString(repo.resolve("FIX.txt"), "the fix: return a / b " + System.nanoTime() + "\n");
        commit(repo, "fix");
        String blob = git(repo, "rev-parse", "HEAD:FIX.txt").strip();
        git(repo, "checkout", "-q", "main");
        git(repo, "merge", "-q", "--ff-only", "fix");
        return blob;
    }

    private static Path manifest(Path dir, String source) throws IOException {
        Path m = dir.resolve("environment.yaml");
        Files.writeString(m, ENV_HEAD + source + ENV_TAIL);
        return m;
    }

    private static Path prepare(Path manifest, Path attempt) throws Exception {
        RunInputs.RolloutDoc doc = RunInputs.load(List.of(manifest), "true").rollouts().get(0);
        return WorkspacePreparer.prepare(doc.environment(), new RolloutSpec(), new AttemptDir(attempt));
    }

    private static String head(Path ws) throws Exception { return git(ws, "rev-parse", "HEAD").strip(); }

    private static String commit(Path repo, String message) throws Exception {
        git(repo, "add", "-A");
        git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", message);
        return git(repo, "rev-parse", "HEAD").strip();
    }

    static String git(Path repo, String... args) throws Exception {
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

    private static Process start(Path repo, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("git", "-c", "safe.directory=*", "-C", repo.toString()));
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).redirectErrorStream(true).start();
    }
}
