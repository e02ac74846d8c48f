package dev.crucible.verifier.pristine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.verifier.support.Fixtures;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The protected-file diff ({@link PristineSnapshot#changes}) against an agent that is still running
 * (issue 34): a protected test file that the agent keeps flipping, by rename, between the file reset
 * saw and a FIFO, a link to /dev/zero, a 1 TiB sparse file, or nothing; and a tests folder that became
 * a link to a host folder. The diff must answer every time, within a bound, without throwing, and never
 * read through the link. Each flip is real (renames on a real file system by a second thread), and the
 * test checks that the diff saw the hostile state at least once.
 */
class PristineChangesHostileTest {
    private static final String TEST = "def test_add():\n    assert 1 + 1 == 2\n";
    @TempDir
    Path dir;
    private final ExecutorService pool = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "diff-under-test");
        t.setDaemon(true); // a diff blocked for good (today's FIFO open) must not hold the JVM
        return t;
    });

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    @Test
    @Timeout(120)
    void aTestFileFlippingToAFifoNeverStallsTheDiff() throws Exception {
        Path ws = workspace();
        Path fifo = dir.resolve("hostile-fifo");
        assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor()).isZero();
        race(ws, fifo, "replaced");
    }

    @Test
    @Timeout(120)
    void aTestFileFlippingToALinkToDevZeroIsNeverFollowed() throws Exception {
        Path ws = workspace();
        Path link = dir.resolve("hostile-link");
        Files.createSymbolicLink(link, Path.of("/dev/zero"));
        race(ws, link, "replaced");
    }

    @Test
    @Timeout(120)
    void aTestFileFlippingToAHugeSparseFileIsNeverReadWhole() throws Exception {
        Path ws = workspace();
        Path huge = dir.resolve("hostile-huge");
        try (RandomAccessFile f = new RandomAccessFile(huge.toFile(), "rw")) {
            f.setLength(1L << 40); // 1 TiB of holes: a terabyte to hash if the size checked before the open is trusted
        }
        race(ws, huge, "modified");
    }

    @Test
    @Timeout(120)
    void aTestFileDeletedWhileTheDiffRunsIsDeletedNotAnError() throws Exception {
        race(workspace(), null, "deleted");
    }

    @Test
    @Timeout(60)
    void aTestsFolderTurnedIntoALinkToAHostFolderIsReplacedAndNotReadThrough() throws Exception {
        Path ws = workspace();
        PristineSnapshot p = PristineSnapshot.take(ws, new ProtectedPaths(List.of("tests/**")), dir.resolve("pristine"));
        Path host = dir.resolve("host");
        Fixtures.write(host.resolve("test_ops.py"), TEST); // the very bytes reset saw: read through the link, nothing looks changed
        Files.move(ws.resolve("tests"), dir.resolve("moved-away"));
        Files.createSymbolicLink(ws.resolve("tests"), host);
        assertThat(p.changes(ws)).contains(new PristineSnapshot.Change("tests/test_ops.py", "replaced"));
    }

    private Path workspace() throws Exception {
        Path ws = dir.resolve("ws");
        Fixtures.write(ws.resolve("calc/ops.py"), "def add(a, b):\n    return a + b\n");
        Fixtures.write(ws.resolve("tests/test_ops.py"), TEST);
        return ws;
    }

    /**
     * Flips tests/test_ops.py between a hard link of the file reset saw and a hard link of {@code hostile}
     * (deleted, when null) while the diff runs over and over; every diff must end within 10 s and report the
     * file unchanged or as {@code expected}, and at least one must have seen the hostile state.
     */
    private void race(Path ws, Path hostile, String expected) throws Exception {
        PristineSnapshot p = PristineSnapshot.take(ws, new ProtectedPaths(List.of("tests/**")), dir.resolve("pristine"));
        Path target = ws.resolve("tests/test_ops.py");
        Path good = dir.resolve("good");
        Files.copy(target, good);
        Files.setLastModifiedTime(good, Files.getLastModifiedTime(target));
        AtomicBoolean stop = new AtomicBoolean();
        Future<?> flipper = pool.submit(() -> {
            long n = 0;
            while (!stop.get()) {
                try {
                    if (hostile == null) {
                        Files.deleteIfExists(target);
                    } else {
                        Path tmp = dir.resolve("tmp-" + n++);
                        Files.createLink(tmp, hostile); // link(2) does not follow a link: the new name is the link itself
                        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                    }
                    Path tmp = dir.resolve("tmp-" + n++);
                    Files.createLink(tmp, good);
                    Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
            return null;
        });
        List<String> seen = new ArrayList<>();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(6);
        int rounds = 0;
        try {
            while (System.nanoTime() < until || seen.isEmpty() && rounds < 5_000) {
                Future<List<PristineSnapshot.Change>> diff = pool.submit(() -> p.changes(ws));
                List<PristineSnapshot.Change> changes = diff.get(10, TimeUnit.SECONDS); // today: a FIFO or /dev/zero opened by path never returns
                rounds++;
                for (PristineSnapshot.Change c : changes) {
                    assertThat(c.path()).isEqualTo("tests/test_ops.py");
                    assertThat(c.kind()).as("what the diff made of the flipping file").isIn(expected, "replaced", "deleted");
                    seen.add(c.kind());
                }
            }
        } finally {
            stop.set(true);
        }
        flipper.get(10, TimeUnit.SECONDS);
        System.out.println(rounds + " diffs, " + seen.size() + " saw the hostile state: " + seen.stream().distinct().toList());
        assertThat(seen).as("the diff never saw the hostile state: the race was not exercised").isNotEmpty();
    }
}
