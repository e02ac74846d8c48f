package dev.crucible.verifier.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.verifier.support.Fixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The git watch's check after a step takes .git from one listing and reads HEAD, config and packed-refs again only when
 * they moved: what git and an agent's plain writes do is still reported in the check that follows them, and the check
 * before grading ({@code full}) reads every file, so even a same-size rewrite with its time set back is reported there.
 */
class GitWatchListingTest {
    @TempDir
    Path dir;

    private final List<WorkspaceScanner.Raw> got = new ArrayList<>();

    private Path repo(String name) {
        Path ws = dir.resolve(name);
        Fixtures.write(ws.resolve("calc/ops.py"), "def divide(a, b):\n    return a / b\n");
        Fixtures.git(ws, "init", "-q");
        Fixtures.git(ws, "add", "-A");
        Fixtures.git(ws, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "task");
        return ws;
    }

    private List<String> rules() { return got.stream().map(WorkspaceScanner.Raw::rule).toList(); }

    @Test
    void changesAreReportedInTheCheckAfterTheStepThatMadeThem() throws Exception {
        Path ws = repo("ws");
        GitWatch g = new GitWatch(ws, ws);
        g.baseline();
        g.check(got::add, false);
        g.check(got::add, false);
        assertThat(got).as("nothing changed").isEmpty();

        // config written in place (same inode, as `echo >> .git/config` does)
        Files.writeString(ws.resolve(".git/config"), "[remote \"up\"]\n\turl = /elsewhere\n", StandardOpenOption.APPEND);
        g.check(got::add, false);
        assertThat(rules()).containsExactly("config");
        got.clear();

        // loose objects of an old history copied in, no ref or index touched
        Path upstream = dir.resolve("upstream");
        Fixtures.write(upstream.resolve("old.txt"), "old\n");
        ProcessBuilder pb = new ProcessBuilder("sh", "-c", "git init -q && git add -A && git -c user.email=t@t -c user.name=t commit -qm old")
                .directory(upstream.toFile()).redirectErrorStream(true);
        pb.environment().put("GIT_COMMITTER_DATE", "2020-01-01T00:00:00");
        pb.environment().put("GIT_AUTHOR_DATE", "2020-01-01T00:00:00");
        Process p = pb.start();
        assertThat(p.waitFor()).as(new String(p.getInputStream().readAllBytes())).isZero();
        try (Stream<Path> objects = Files.walk(upstream.resolve(".git/objects"))) {
            for (Path o : objects.filter(Files::isRegularFile).filter(f -> f.getParent().getFileName().toString().length() == 2).toList()) {
                Path to = ws.resolve(".git/objects").resolve(upstream.resolve(".git/objects").relativize(o));
                Files.createDirectories(to.getParent());
                if (!Files.exists(to)) Files.copy(o, to);
            }
        }
        g.check(got::add, false);
        assertThat(rules()).containsExactly("old-commit");
        got.clear();

        // a FIFO in place of HEAD is refused, and reported, in the next check
        Files.delete(ws.resolve(".git/HEAD"));
        Process mk = new ProcessBuilder("mkfifo", ws.resolve(".git/HEAD").toString()).start();
        assertThat(mk.waitFor()).isZero();
        g.check(got::add, false);
        assertThat(rules()).contains(GitWatch.HOSTILE);
    }

    @Test
    void aRewriteThatKeepsSizeAndTimeIsReportedByTheFullCheck() throws Exception {
        Path ws = repo("ws2");
        Path head = ws.resolve(".git/HEAD");
        GitWatch g = new GitWatch(ws, ws);
        g.baseline();
        g.check(got::add, false);
        String before = Files.readString(head);
        FileTime mtime = Files.getLastModifiedTime(head);
        String after = "ref: refs/heads/" + "x".repeat(before.length() - "ref: refs/heads/".length() - 1) + "\n";
        assertThat(after).hasSameSizeAs(before).isNotEqualTo(before);
        Files.writeString(head, after); // in place: same inode
        Files.setLastModifiedTime(head, mtime);
        g.check(got::add, true);
        assertThat(rules()).containsExactly("head-moved");
    }
}
