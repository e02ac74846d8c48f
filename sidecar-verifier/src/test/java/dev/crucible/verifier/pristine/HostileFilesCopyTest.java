package dev.crucible.verifier.pristine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.files.CopyStats;
import dev.crucible.verifier.pristine.TreeCopy;
import dev.crucible.verifier.support.Fixtures;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an agent can leave in its workspace for the host's copies (issue 34 point 3): a 3 GiB sparse
 * file, a FIFO, a link to a host file. The host's disk use is read with stat (st_blocks) and du.
 */
class HostileFilesCopyTest {
    private static final long GIB = 1L << 30;
    @TempDir
    Path dir;

    private Path workspaceWithASparseFile(String rel) throws Exception {
        Path ws = dir.resolve("ws");
        Fixtures.write(ws.resolve("calc/ops.py"), "def add(a, b):\n    return a + b\n");
        Fixtures.write(ws.resolve("tests/test_ops.py"), "def test_add():\n    assert True\n");
        Files.createDirectories(ws.resolve(rel).getParent());
        try (RandomAccessFile f = new RandomAccessFile(ws.resolve(rel).toFile(), "rw")) { // truncate -s 3G
            f.setLength(3 * GIB);
        }
        return ws;
    }

    @Test
    @Timeout(120)
    void aSparseFileStaysSparseInTheGradingTreeAndThePristineSnapshot() throws Exception {
        Path ws = workspaceWithASparseFile("calc/huge.bin");
        Fixtures.write(ws.resolve("tests/blob.bin"), ""); // a protected one too
        try (RandomAccessFile f = new RandomAccessFile(ws.resolve("tests/blob.bin").toFile(), "rw")) {
            f.setLength(GIB); // 1 GiB: the snapshot hashes what it copies, holes included
        }
        PristineSnapshot p = PristineSnapshot.take(ws, new ProtectedPaths(List.of("tests/**")), dir.resolve("pristine"));
        Path grade = dir.resolve("grade-1");
        GradingTree.Built built = GradingTree.build(ws, p, grade, null, null);
        long treeBlocks = du(grade);
        long pristineBlocks = du(p.dir());
        System.out.println("workspace with a 3 GiB and a 1 GiB sparse file: grading tree takes " + treeBlocks + " bytes (du), the build said "
                + built.copied().allocatedBytes() + "; pristine snapshot " + pristineBlocks + " bytes, it said " + p.copyStats().allocatedBytes());
        assertThat(Files.size(grade.resolve("calc/huge.bin"))).isEqualTo(3 * GIB);
        assertThat(Files.size(grade.resolve("tests/blob.bin"))).isEqualTo(GIB);
        assertThat(treeBlocks).isLessThan(1 << 20);
        assertThat(pristineBlocks).isLessThan(1 << 20);
        assertThat(built.copied().allocatedBytes()).isEqualTo(treeBlocks);
        assertThat(p.copyStats().allocatedBytes()).isEqualTo(pristineBlocks);
    }

    @Test
    @Timeout(120)
    void aSparseFileStaysSparseInTheResetCopy() throws Exception {
        Path ws = workspaceWithASparseFile("calc/huge.bin");
        CopyStats s = TreeCopy.copy(ws, dir.resolve("initial"));
        long blocks = du(dir.resolve("initial"));
        System.out.println("reset copy of a 3 GiB sparse file: " + blocks + " bytes (du), the copy said " + s.allocatedBytes());
        assertThat(blocks).isLessThan(1 << 20);
        assertThat(s.allocatedBytes()).isEqualTo(blocks);
    }

    @Test
    @Timeout(60)
    void aFifoIsLeftOutOfEveryCopyWithTheReasonAndNeverOpened() throws Exception {
        Path ws = dir.resolve("ws");
        Fixtures.write(ws.resolve("calc/ops.py"), "x = 1\n");
        Fixtures.write(ws.resolve("tests/test_ops.py"), "def test_x():\n    pass\n");
        mkfifo(ws.resolve("calc/pipe"));
        mkfifo(ws.resolve("tests/pipe")); // protected
        Files.createSymbolicLink(ws.resolve("calc/passwd"), Path.of("/etc/passwd"));
        PristineSnapshot p = PristineSnapshot.take(ws, new ProtectedPaths(List.of("tests/**")), dir.resolve("pristine"));
        assertThat(p.copyStats().skipped()).extracting(CopyStats.Skipped::path).containsExactly("tests/pipe");
        GradingTree.Built built = GradingTree.build(ws, p, dir.resolve("grade-1"), null, null);
        String why = "is a FIFO; not copied (a copy never opens one: a FIFO would block it, a device could be endless)";
        assertThat(built.dropped()).contains("calc/pipe: " + why)
                .contains("calc/passwd: is a link to the absolute path /etc/passwd; a link kept in the tree must be relative and stay inside it");
        assertThat(Files.exists(dir.resolve("grade-1/calc/pipe"), LinkOption.NOFOLLOW_LINKS)).isFalse();
        assertThat(Files.exists(dir.resolve("grade-1/calc/passwd"), LinkOption.NOFOLLOW_LINKS)).isFalse();
        CopyStats reset = TreeCopy.copy(ws, dir.resolve("initial"));
        assertThat(reset.skipped()).extracting(CopyStats.Skipped::toString).containsExactlyInAnyOrder("calc/pipe: " + why, "tests/pipe: " + why);
        assertThat(Files.exists(dir.resolve("initial/calc/pipe"), LinkOption.NOFOLLOW_LINKS)).isFalse();
    }

    @Test
    @Timeout(30)
    void aTestFileReplacedByAHugeSparseFileIsAChangeFoundWithoutReadingIt() throws Exception {
        Path ws = dir.resolve("ws");
        Fixtures.write(ws.resolve("tests/test_ops.py"), "def test_add():\n    assert True\n");
        PristineSnapshot p = PristineSnapshot.take(ws, new ProtectedPaths(List.of("tests/**")), dir.resolve("pristine"));
        try (RandomAccessFile f = new RandomAccessFile(ws.resolve("tests/test_ops.py").toFile(), "rw")) {
            f.setLength(1L << 40); // 1 TiB of holes: hashing it would read a terabyte
        }
        long t0 = System.nanoTime();
        assertThat(p.changes(ws)).containsExactly(new PristineSnapshot.Change("tests/test_ops.py", "modified"));
        assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(5_000);
    }

    private static void mkfifo(Path p) throws Exception {
        assertThat(new ProcessBuilder("mkfifo", p.toString()).start().waitFor()).isZero();
    }

    /** Host disk under {@code p}, from du (which counts allocated blocks, not sizes). */
    static long du(Path p) throws Exception {
        Process proc = new ProcessBuilder("du", "-s", "-B1", p.toString()).start();
        String out = new String(proc.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(proc.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return Long.parseLong(out.split("\\s+")[0]);
    }
}
