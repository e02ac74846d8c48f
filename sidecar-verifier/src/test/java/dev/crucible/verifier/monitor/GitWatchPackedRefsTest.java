package dev.crucible.verifier.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.verifier.support.Fixtures;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * packed-refs is the agent's file: the watch reads it from bytes and keeps only the refs a finding can name (host round 6,
 * P5: a 30 MB packed-refs of tags cost the CLI about 630 MiB of RSS, the whole file as a String, its lines and a set of
 * every ref). A remote-tracking ref that appears among 300,000 tags is still reported.
 */
class GitWatchPackedRefsTest {
    @TempDir
    Path dir;

    private static final String SHA = "0123456789abcdef0123456789abcdef01234567";

    @Test
    void aRemoteRefAmongManyTagsIsReportedAndTheTagsAreNotKept() throws Exception {
        Path ws = dir.resolve("ws");
        Fixtures.write(ws.resolve("calc/ops.py"), "def divide(a, b):\n    return a / b\n");
        Fixtures.git(ws, "init", "-q");
        Fixtures.git(ws, "add", "-A");
        Fixtures.git(ws, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "task");
        StringBuilder refs = new StringBuilder("# pack-refs with: peeled fully-peeled sorted \n");
        for (int i = 0; i < 300_000; i++) refs.append(SHA).append(" refs/tags/v").append(i).append('\n');
        refs.append(SHA).append(" refs/remotes/origin/main\n^").append(SHA).append('\n');
        Files.writeString(ws.resolve(".git/packed-refs"), refs, StandardCharsets.US_ASCII);
        GitWatch g = new GitWatch(ws, ws);
        g.baseline();
        assertThat(g.packedRefsKept()).as("the tags are never reported, so never kept (before: 300,001)").isEqualTo(1);
        List<WorkspaceScanner.Raw> got = new ArrayList<>();
        g.check(got::add, true);
        assertThat(got).as("nothing changed").isEmpty();

        Files.writeString(ws.resolve(".git/packed-refs"), SHA + " refs/remotes/upstream/fix\n", StandardCharsets.US_ASCII,
                java.nio.file.StandardOpenOption.APPEND);
        g.check(got::add, true);
        assertThat(got).extracting(WorkspaceScanner.Raw::evidence).containsExactly("packed ref refs/remotes/upstream/fix@" + SHA + " appeared");
    }

    @Test
    void onlyRemoteTrackingAndReplaceRefLinesAreKept() {
        assertThat(ref(SHA + " refs/remotes/origin/main")).isEqualTo("refs/remotes/origin/main@" + SHA);
        assertThat(ref("  " + SHA + "\trefs/replace/" + SHA + " \r")).isEqualTo("refs/replace/" + SHA + "@" + SHA);
        assertThat(ref(SHA + " refs/tags/v1")).isNull();
        assertThat(ref(SHA + " refs/heads/main")).isNull();
        assertThat(ref("^" + SHA)).isNull();
        assertThat(ref("# pack-refs with: peeled")).isNull();
        assertThat(ref(SHA + " refs/remotes/a b")).as("a third field").isNull();
        assertThat(ref("refs/remotes/origin/main")).as("no hash").isNull();
        assertThat(ref("")).isNull();
    }

    private static String ref(String line) {
        byte[] b = ("x\n" + line + "\ny").getBytes(StandardCharsets.ISO_8859_1);
        return GitWatch.reportableRef(b, 2, 2 + line.length());
    }
}
