package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.api.v1alpha1.common.ResourcesSpec;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The attempt's disk for real (root: a loop-mounted volume): the sandbox folder and the state folder lie on it,
 * and closing it keeps the workspace in the attempt folder (holes kept, links as links, no FIFO), unmounted and
 * its image deleted.
 */
class AttemptScratchTest {
    @TempDir
    Path tmp;

    @Test
    void theWorkspaceOutlivesTheVolumeAndNothingIsLeftMounted() throws Exception {
        Assumptions.assumeTrue(dev.crucible.verifier.sandbox.Box.ROOT, "attempt volumes need root (loop mount); not root here");
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/sbin/mkfs.ext4")), "mkfs.ext4 is missing (apt-get install -y e2fsprogs)");
        AttemptDir dir = new AttemptDir(Files.createDirectories(tmp.resolve("attempt-0")));
        ResourcesSpec r = new ResourcesSpec();
        r.ephemeralStorage = "128Mi";
        AttemptScratch s = AttemptScratch.open(dir, r, true);
        try {
            assertThat(s.volume()).as(s.describe()).isNotNull();
            assertThat(s.describe()).contains("disk limit 128Mi (spec.resources.ephemeralStorage)", "loop-mounted ext4 volume");
            assertThat(s.stateDir()).startsWith(dir.sandbox());
            Path ws = Files.createDirectories(dir.sandbox().resolve("workspace/src"));
            Files.writeString(ws.resolve("a.py"), "print('kept')\n");
            try (RandomAccessFile f = new RandomAccessFile(ws.resolve("sparse.bin").toFile(), "rw")) {
                f.setLength(100L << 20);
                f.seek(50L << 20);
                f.write("data in the middle".getBytes(StandardCharsets.UTF_8));
            }
            byte[] real = new byte[40 << 20];
            java.util.Arrays.fill(real, (byte) 1);
            Files.write(ws.resolve("real.bin"), real);
            Files.createSymbolicLink(ws.resolve("passwd"), Path.of("/etc/passwd"));
            byte[] shared = new byte[20 << 20]; // over a 16 MiB piece: moving one name must not punch out the others' data
            java.util.Arrays.fill(shared, (byte) 7);
            Files.write(ws.resolve("linked-a.bin"), shared);
            Files.createLink(ws.resolve("linked-b.bin"), ws.resolve("linked-a.bin"));
            Files.createLink(ws.resolve("linked-c.bin"), ws.resolve("linked-a.bin"));
            new ProcessBuilder("mkfifo", ws.resolve("fifo").toString()).start().waitFor();
            Files.writeString(s.stateDir().resolve("grading-copy"), "state");
            s.holdAgentLog();
            assertThat(dir.agentLog().toRealPath()).startsWith(dir.sandbox());
            Files.writeString(dir.agentLog(), "the agent's output\n");
        } finally {
            s.close();
        }
        assertThat(Files.readString(Path.of("/proc/self/mounts"))).doesNotContain(dir.root().toString());
        assertThat(dir.root().resolve(AttemptScratch.IMAGE)).doesNotExist();
        Path ws = dir.sandbox().resolve("workspace/src");
        assertThat(ws.resolve("a.py")).hasContent("print('kept')");
        assertThat(Files.size(ws.resolve("sparse.bin"))).isEqualTo(100L << 20);
        assertThat(DiskVolumeBytes.allocated(ws.resolve("sparse.bin"))).as("holes stay holes").isLessThan(1L << 20);
        assertThat(Files.size(ws.resolve("real.bin"))).isEqualTo(40L << 20);
        assertThat(Files.isSymbolicLink(ws.resolve("passwd"))).isTrue();
        for (String n : java.util.List.of("linked-a.bin", "linked-b.bin", "linked-c.bin")) {
            byte[] got = Files.readAllBytes(ws.resolve(n));
            assertThat(got.length).as(n).isEqualTo(20 << 20);
            assertThat(got[0] == 7 && got[got.length - 1] == 7 && got[(17 << 20)] == 7).as(n + " keeps its data").isTrue();
        }
        assertThat(Files.getAttribute(ws.resolve("linked-c.bin"), "unix:nlink")).as("kept as one file with three names").isEqualTo(3);
        assertThat(ws.resolve("fifo")).doesNotExist();
        assertThat(dir.root().resolve("not-kept.txt")).content().contains("fifo").doesNotContain("a.py", "passwd", "real.bin");
        assertThat(dir.sandbox().resolve(AttemptScratch.STATE)).doesNotExist();
        assertThat(Files.isSymbolicLink(dir.agentLog())).as("agent.log is a file of the attempt again").isFalse();
        assertThat(dir.agentLog()).hasContent("the agent's output");
        assertThat(dir.sandbox().resolve(AttemptScratch.AGENT_LOG)).doesNotExist();
    }

    @Test
    void withoutAnEphemeralStorageTheDefaultIsSaidAndNoVolumeMeansItSaysNotEnforced() throws Exception {
        AttemptDir dir = new AttemptDir(Files.createDirectories(tmp.resolve("attempt-1")));
        AttemptScratch s = AttemptScratch.open(dir, null, false);
        try {
            assertThat(s.bytes()).isEqualTo(10L << 30);
            assertThat(s.describe()).contains("disk limit 10Gi (the default: spec.resources.ephemeralStorage is not set)", "NOT enforced as a hard cap");
            assertThat(s.stateDir().startsWith(dir.root())).as("a temporary state folder, not in the attempt").isFalse();
        } finally {
            s.close();
        }
        assertThat(s.stateDir()).doesNotExist();
    }

    /** du of one file: the bytes the host allocated to it. */
    static final class DiskVolumeBytes {
        static long allocated(Path f) throws Exception {
            Process p = new ProcessBuilder("du", "-B1", f.toString()).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor();
            return Long.parseLong(out.split("\\s+")[0]);
        }
    }
}
