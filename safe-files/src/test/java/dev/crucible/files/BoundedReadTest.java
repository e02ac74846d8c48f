package dev.crucible.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real FIFOs (mkfifo), real links to a canary file outside the root, /dev/zero, a 3 GiB sparse file,
 * a file deleted while it is read, and FIFOs swapped in between the type check and the open.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class BoundedReadTest {
    static final String CANARY = "CANARY-7f3a-host-secret";

    @TempDir
    Path tmp;
    Path ws;
    Path canary;
    BoundedRead files;

    @BeforeEach
    void setUp() throws Exception {
        ws = Files.createDirectory(tmp.resolve("ws"));
        canary = Files.writeString(tmp.resolve("secret"), CANARY + "\n");
        files = BoundedRead.of(ws, "workspace").withTimeout(Duration.ofMillis(500));
    }

    @AfterEach
    void clearSeams() {
        NoFollowWalk.beforeOpen = null;
        NoFollowWalk.afterOpen = null;
    }

    static void mkfifo(Path p) throws Exception {
        Process pr = new ProcessBuilder("mkfifo", p.toString()).inheritIO().start();
        assertThat(pr.waitFor()).as("mkfifo " + p).isZero();
    }

    @Test
    void readsFilesAndLinksThatStayInside() throws Exception {
        Files.createDirectories(ws.resolve(".git/refs/heads"));
        Files.writeString(ws.resolve(".git/refs/heads/main"), "abc\n");
        Files.createSymbolicLink(ws.resolve(".git/HEAD"), Path.of("refs/heads/main"));
        assertThat(new String(files.read(".git/HEAD", 4096), StandardCharsets.UTF_8)).isEqualTo("abc\n");
        assertThat(files.read(".git/missing", 4096)).isNull();
        assertThat(files.read("nodir/x", 4096)).isNull();
        Files.createSymbolicLink(ws.resolve("dangling"), Path.of("nowhere"));
        assertThat(files.read("dangling", 4096)).isNull();
        assertThat(files.lstat(".git/HEAD").isSymbolicLink()).isTrue();
        assertThat(files.list(".git/refs", 10)).containsOnlyKeys("heads");
        assertThat(files.tree(".git/refs", 10)).containsOnlyKeys("heads", "heads/main");
    }

    @Test
    void aBatchReadsEachFileOnItsOwnTerms() throws Exception {
        Files.createDirectories(ws.resolve("pkg"));
        Files.writeString(ws.resolve("pkg/a.py"), "a = 1\n");
        Files.writeString(ws.resolve("b.py"), "b = 2\n");
        mkfifo(ws.resolve("pkg/fifo.py"));
        Files.createSymbolicLink(ws.resolve("pkg/out.py"), canary);
        try (RandomAccessFile f = new RandomAccessFile(ws.resolve("big.py").toFile(), "rw")) {
            f.setLength(3L << 30);
        }
        var got = files.readMany(java.util.List.of("pkg/a.py", "pkg/fifo.py", "b.py", "pkg/out.py", "missing.py", "big.py"), 1 << 20);
        assertThat(new String((byte[]) got.get("pkg/a.py"), StandardCharsets.UTF_8)).isEqualTo("a = 1\n");
        assertThat(new String((byte[]) got.get("b.py"), StandardCharsets.UTF_8)).isEqualTo("b = 2\n");
        assertThat(((FileRefusal) got.get("pkg/fifo.py")).kind()).isEqualTo(FileRefusal.Kind.FIFO);
        assertThat(((FileRefusal) got.get("pkg/out.py")).kind()).isEqualTo(FileRefusal.Kind.LINK_OUT);
        assertThat(((FileRefusal) got.get("big.py")).kind()).isEqualTo(FileRefusal.Kind.TOO_BIG);
        assertThat(got).containsEntry("missing.py", null);
        assertThat(got.toString()).doesNotContain("CANARY");
    }

    @Test
    void aFifoIsRefusedWithoutOpeningIt() throws Exception {
        Files.createDirectories(ws.resolve(".git"));
        mkfifo(ws.resolve(".git/HEAD"));
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> files.read(".git/HEAD", 4096)).isInstanceOfSatisfying(FileRefusal.class,
                r -> assertThat(r.kind()).isEqualTo(FileRefusal.Kind.FIFO));
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).as("refused before any open, not at the deadline").isLessThan(400);
        assertThat(files.list(".git", 10).get("HEAD").isOther()).isTrue();
    }

    @Test
    void aLinkToAHostFileIsRefusedAndNoByteOfItIsQuoted() throws Exception {
        Files.createDirectories(ws.resolve(".git"));
        Files.createSymbolicLink(ws.resolve(".git/HEAD"), canary);
        Files.createSymbolicLink(ws.resolve("up"), Path.of("../secret"));
        for (String rel : new String[] {".git/HEAD", "up"}) {
            assertThatThrownBy(() -> files.read(rel, 4096)).isInstanceOfSatisfying(FileRefusal.class, r -> {
                assertThat(r.kind()).isEqualTo(FileRefusal.Kind.LINK_OUT);
                assertThat(r.getMessage()).doesNotContain("CANARY");
            });
            assertThatThrownBy(() -> files.sha256(rel, 4096)).isInstanceOf(FileRefusal.class);
            assertThatThrownBy(() -> files.head(rel, 10)).isInstanceOf(FileRefusal.class);
        }
    }

    @Test
    void aDirectoryLinkOutOfTheRootIsRefusedForReadsAndListings() throws Exception {
        Files.createSymbolicLink(ws.resolve(".git"), tmp);
        assertThatThrownBy(() -> files.read(".git/secret", 4096)).isInstanceOfSatisfying(FileRefusal.class,
                r -> assertThat(r.kind()).isEqualTo(FileRefusal.Kind.LINK_OUT));
        assertThatThrownBy(() -> files.list(".git", 100)).isInstanceOfSatisfying(FileRefusal.class,
                r -> assertThat(r.kind()).isEqualTo(FileRefusal.Kind.LINK_OUT));
        assertThat(files.list("", 10)).containsOnlyKeys(".git");
        assertThat(files.list("", 10).get(".git").isSymbolicLink()).isTrue();
    }

    @Test
    void aRootReplacedByALinkIsRefused() throws Exception {
        Path site = Files.createDirectory(tmp.resolve("site"));
        BoundedRead r = BoundedRead.of(site, "site directory");
        Files.move(site, tmp.resolve("site-old"));
        Files.createDirectory(tmp.resolve("elsewhere"));
        Files.writeString(tmp.resolve("elsewhere/evil.pth"), CANARY);
        Files.createSymbolicLink(site, tmp.resolve("elsewhere"));
        assertThatThrownBy(() -> r.list("", 10)).isInstanceOfSatisfying(FileRefusal.class,
                f -> assertThat(f.kind()).isEqualTo(FileRefusal.Kind.RACED));
        Files.delete(site);
        Files.createDirectory(site);
        assertThatThrownBy(() -> r.read("evil.pth", 100)).as("another folder in its place").isInstanceOf(FileRefusal.class);
    }

    @Test
    void aLinkToDevZeroIsRefused() throws Exception {
        Files.createSymbolicLink(ws.resolve("HEAD"), Path.of("/dev/zero"));
        assertThatThrownBy(() -> files.read("HEAD", 1 << 20)).isInstanceOfSatisfying(FileRefusal.class,
                r -> assertThat(r.kind()).isEqualTo(FileRefusal.Kind.LINK_OUT));
    }

    @Test
    void aHugeSparseFileIsRefusedByItsSizeAndItsHeadIsBounded() throws Exception {
        try (RandomAccessFile f = new RandomAccessFile(ws.resolve("big").toFile(), "rw")) {
            f.setLength(3L << 30);
        }
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> files.read("big", 64 << 10)).isInstanceOfSatisfying(FileRefusal.class,
                r -> assertThat(r.kind()).isEqualTo(FileRefusal.Kind.TOO_BIG));
        assertThatThrownBy(() -> files.sha256("big", 1 << 20)).isInstanceOf(FileRefusal.class);
        assertThat(files.head("big", 8192)).hasSize(8192);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isLessThan(2000);
    }

    @Test
    void aFileDeletedWhileItIsReadGivesWhatWasOpened() throws Exception {
        Path f = Files.writeString(ws.resolve("mod.py"), "x = 1\n".repeat(1000));
        NoFollowWalk.afterOpen = () -> {
            try {
                Files.delete(f);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        };
        assertThat(files.read("mod.py", 1 << 20)).hasSize(6000);
        assertThat(f).doesNotExist();
        NoFollowWalk.afterOpen = null;
        assertThat(files.read("mod.py", 1 << 20)).isNull();
    }

    @Test
    void aFileTruncatedWhileItIsReadGivesWhatIsLeft() throws Exception {
        Path f = Files.writeString(ws.resolve("mod.py"), "x = 1\n".repeat(1000));
        NoFollowWalk.afterOpen = () -> {
            try {
                Files.write(f, new byte[0], StandardOpenOption.TRUNCATE_EXISTING);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        };
        assertThat(files.read("mod.py", 1 << 20)).isEmpty();
    }

    @Test
    void aFifoSwappedInBeforeTheOpenIsReleasedAndRefused() throws Exception {
        Path head = Files.writeString(ws.resolve("HEAD"), "ref: refs/heads/main\n");
        NoFollowWalk.beforeOpen = () -> swapForFifo(head);
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> files.read("HEAD", 4096)).isInstanceOfSatisfying(FileRefusal.class,
                r -> assertThat(r.kind()).isEqualTo(FileRefusal.Kind.RACED));
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isLessThan(1500);
        assertThat(BoundedRead.stalledNow()).as("the blocked open was released, no worker left behind").isZero();
    }

    @Test
    void aDirectorySwappedForAFifoDuringAWalkIsReleasedAndTheWalkGoesOn() throws Exception {
        Files.createDirectories(ws.resolve("a"));
        Files.writeString(ws.resolve("a/x.py"), "x = 1\n");
        Files.createDirectories(ws.resolve(".git/objects"));
        Files.writeString(ws.resolve("b.py"), "y = 2\n");
        NoFollowWalk.beforeOpen = () -> {
            NoFollowWalk.beforeOpen = null; // once: the first directory entered becomes a FIFO
            try {
                Files.writeString(ws.resolve("a/x.py"), "x = 1\n");
                Files.delete(ws.resolve("a/x.py"));
                Files.delete(ws.resolve("a"));
                mkfifo(ws.resolve("a"));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        };
        long t0 = System.nanoTime();
        var all = files.tree("", 100, java.util.Set.of(".git"));
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isLessThan(1500);
        assertThat(all).containsKeys("a", "b.py", ".git").doesNotContainKey(".git/objects");
        assertThat(BoundedRead.stalledNow()).isZero();
    }

    @Test
    void aBlockedOpenThatCannotBeReleasedEndsTheReadAtItsDeadline() throws Exception {
        Path head = Files.writeString(ws.resolve("HEAD"), "ref: refs/heads/main\n");
        Path moved = tmp.resolve("moved-fifo");
        NoFollowWalk.beforeOpen = () -> {
            swapForFifo(head);
            // the FIFO is opened by the worker's path lookup only after this returns: move it away once the open waits
            new Thread(() -> {
                try {
                    Thread.sleep(100);
                    Files.move(head, moved);
                } catch (Exception ignored) {
                    // the test's assertions say what happened
                }
            }).start();
        };
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> files.read("HEAD", 4096)).isInstanceOfSatisfying(FileRefusal.class,
                r -> assertThat(r.kind()).isEqualTo(FileRefusal.Kind.STALLED));
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isLessThan(1500);
        assertThat(BoundedRead.stalledNow()).isEqualTo(1);
        // a writer releases the abandoned worker; it is no longer counted
        NoFollowWalk.beforeOpen = null;
        try (var w = Files.newByteChannel(moved, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (BoundedRead.stalledNow() > 0 && System.nanoTime() < until) Thread.sleep(20);
        }
        assertThat(BoundedRead.stalledNow()).isZero();
    }

    /**
     * A plain file whose read runs past its deadline with no open blocked (a slow machine: the worker was not scheduled)
     * is SLOW, not hostile: the blind host round saw an honest run at load 45 flagged grader-tampering (high) that way.
     * A FIFO swapped in (the test above) stays STALLED and hostile.
     */
    @Test
    void aReadLateOnASlowMachineIsNotHostile() throws Exception {
        Files.writeString(ws.resolve("calc.py"), "x = 1\n");
        NoFollowWalk.beforeOpen = () -> {
            try {
                Thread.sleep(2_500); // before the open: no open is blocked, the op is only late (readMs is ~1.2 s here)
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        assertThatThrownBy(() -> files.read("calc.py", 4096)).isInstanceOfSatisfying(FileRefusal.class, r -> {
            assertThat(r.kind()).isEqualTo(FileRefusal.Kind.SLOW);
            assertThat(r.hostile()).isFalse();
        });
        NoFollowWalk.beforeOpen = null;
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (BoundedRead.stalledNow() > 0 && System.nanoTime() < until) Thread.sleep(20);
        assertThat(files.read("calc.py", 4096)).isNotNull();
    }

    @Test
    void stalledReadsUnderOneRootNeverRefuseAnothersReads() throws Exception {
        Path other = Files.createDirectory(tmp.resolve("other"));
        Files.writeString(other.resolve("HEAD"), "ref: refs/heads/main\n");
        BoundedRead neighbour = BoundedRead.of(other, "workspace");
        List<Path> moved = new java.util.ArrayList<>();
        for (int i = 0; i < BoundedRead.MAX_STALLED; i++) {
            Path head = Files.writeString(ws.resolve("HEAD"), "ref: refs/heads/main\n");
            Path away = tmp.resolve("away-" + i);
            moved.add(away);
            NoFollowWalk.beforeOpen = () -> {
                swapForFifo(head);
                new Thread(() -> {
                    try {
                        Thread.sleep(100);
                        Files.move(head, away);
                    } catch (Exception ignored) {
                        // the assertions say what happened
                    }
                }).start();
            };
            assertThatThrownBy(() -> files.read("HEAD", 4096)).isInstanceOf(FileRefusal.class);
        }
        NoFollowWalk.beforeOpen = null;
        assertThat(BoundedRead.stalledNow()).isEqualTo(BoundedRead.MAX_STALLED);
        Files.writeString(ws.resolve("HEAD"), "ref: refs/heads/main\n");
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> files.read("HEAD", 4096)).as("this root: refused without trying").isInstanceOfSatisfying(FileRefusal.class,
                r -> assertThat(r.kind()).isEqualTo(FileRefusal.Kind.STALLED));
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isLessThan(100);
        assertThat(neighbour.read("HEAD", 4096)).as("another root reads as ever").isNotNull();
        for (Path away : moved) {
            int before = BoundedRead.stalledNow();
            // a writer lets the stalled open through; closed at once, so a reader that got as far as read() sees EOF
            // (waiting with the writer still open could hold a reader in read() until the test's timeout)
            try (var w = Files.newByteChannel(away, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                assertThat(w.isOpen()).isTrue();
            }
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            while (BoundedRead.stalledNow() == before && System.nanoTime() < until) Thread.sleep(10);
        }
        assertThat(BoundedRead.stalledNow()).isZero();
        assertThat(files.read("HEAD", 4096)).isNotNull();
    }

    private static void swapForFifo(Path p) {
        try {
            Files.delete(p);
            mkfifo(p);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
