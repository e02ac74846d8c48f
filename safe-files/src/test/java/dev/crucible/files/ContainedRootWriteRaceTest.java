package dev.crucible.files;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ContainedRoot#write} against an agent process that is still running (issue 34): a second thread
 * swaps the folder of the file being written for a link to a host folder, or the file itself for a FIFO,
 * over and over by rename, while the write runs over and over. Nothing may land outside the root, and no
 * write may block. Tagged {@code attacks}: it runs with the attack suite (attacks/README.md) as well.
 */
@Tag("attacks")
class ContainedRootWriteRaceTest {
    @TempDir
    Path tmp;
    Path ws;
    Path outside;
    ContainedRoot root;
    private final ExecutorService pool = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "race");
        t.setDaemon(true); // a write blocked for good on a FIFO must not hold the JVM
        return t;
    });

    @BeforeEach
    void setUp() throws Exception {
        ws = Files.createDirectory(tmp.resolve("ws"));
        outside = Files.createDirectory(tmp.resolve("outside"));
        Files.createDirectory(ws.resolve("a"));
        root = ContainedRoot.of(ws);
    }

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    @Test
    @Timeout(120)
    void aFolderSwappedForALinkOutWhileWrittenNeverLeadsTheWriteOut() throws Exception {
        Path a = ws.resolve("a");
        Path real = tmp.resolve("real");
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger swaps = new AtomicInteger();
        Future<?> swapper = swapper(a, real, stop, swaps, ContainedRootWriteRaceTest::putBack);
        int wrote = 0;
        int refused = 0;
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(12); // the old write went out within 6 s in 2 runs of 3, within 12 s in every run seen
        try {
            while (System.nanoTime() < until && !Files.exists(outside.resolve("f.txt"))) {
                Future<Path> w = pool.submit(() -> root.write("a/f.txt", "written".getBytes(StandardCharsets.UTF_8), "args.path"));
                try {
                    Path p = w.get(10, TimeUnit.SECONDS);
                    assertThat(p.startsWith(ws)).as(p + " is under the root").isTrue(); // textually: it may be swapped away by now
                    wrote++;
                } catch (java.util.concurrent.ExecutionException e) {
                    refused++; // refused (a link, a missing folder): fine, as long as nothing went out
                }
            }
        } finally {
            stop.set(true);
        }
        swapper.get(10, TimeUnit.SECONDS);
        System.out.println(wrote + " writes, " + refused + " refused, " + swaps.get() + " swaps to the link");
        assertThat(outside.resolve("f.txt")).as("a write went through the swapped-in link to the host folder").doesNotExist();
        assertThat(swaps.get()).as("the race was not exercised").isPositive();
        assertThat(wrote).as("no write succeeded at all").isPositive();
    }

    /**
     * The parent folders a write creates: the walk looked at "a" (a folder), then made "a/nN" by path, so "a" swapped
     * for a link to a host folder in between put an empty folder there (seen within a few seconds before the fix).
     */
    @Test
    @Timeout(120)
    void aFolderSwappedForALinkWhileItsSubfolderIsMadeNeverMakesItOutside() throws Exception {
        Path a = ws.resolve("a");
        Path real = tmp.resolve("real");
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger swaps = new AtomicInteger();
        Future<?> swapper = swapper(a, real, stop, swaps, ContainedRootWriteRaceTest::putBackTree);
        int made = 0;
        int refused = 0;
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(12);
        try {
            for (int i = 0; System.nanoTime() < until && isEmpty(outside); i++) {
                String rel = "a/n" + i + "/f.txt";
                Future<Path> w = pool.submit(() -> root.write(rel, "x".getBytes(StandardCharsets.UTF_8), "args.path"));
                try {
                    w.get(10, TimeUnit.SECONDS);
                    made++;
                } catch (java.util.concurrent.ExecutionException e) {
                    refused++;
                }
            }
        } finally {
            stop.set(true);
        }
        swapper.get(10, TimeUnit.SECONDS);
        System.out.println(made + " folders made, " + refused + " refused, " + swaps.get() + " swaps to the link");
        try (var l = Files.list(outside)) {
            assertThat(l.map(p -> p.getFileName().toString()).toList()).as("a folder was made through the swapped-in link").isEmpty();
        }
        try (var l = Files.list(ws)) {
            assertThat(l.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(".crucible-mkdir-")).toList())
                    .as("temporary folders left in the root").isEmpty();
        }
        assertThat(swaps.get()).as("the race was not exercised").isPositive();
        assertThat(made).as("no write succeeded at all").isPositive();
    }

    /** As putBack, where a write may have made "a" and folders in it during a gap. */
    /** Puts the real folder back at {@code a} after a write made something there in a gap. */
    private interface PutBack {
        void run(Path a, Path real) throws IOException;
    }

    /**
     * Swaps folder {@code a} for a link to the host folder and back until {@code stop} (the same two names throughout:
     * nothing piles up), counting the swaps; when a write made "a" in a gap, {@code putBack} removes it and puts the
     * real folder back (if a write made it again meanwhile, the next round tries once more).
     */
    private Future<?> swapper(Path a, Path real, AtomicBoolean stop, AtomicInteger swaps, PutBack putBack) {
        return pool.submit(() -> {
            while (!stop.get()) {
                try {
                    Files.move(a, real, StandardCopyOption.ATOMIC_MOVE);
                    Files.createSymbolicLink(a, outside);
                    swaps.incrementAndGet();
                    Files.delete(a);
                    Files.move(real, a, StandardCopyOption.ATOMIC_MOVE);
                } catch (IOException raced) {
                    try {
                        putBack.run(a, real);
                    } catch (IOException again) {
                        // the next round tries once more
                    }
                }
            }
            putBack.run(a, real);
            return null;
        });
    }

    private static void putBackTree(Path a, Path real) throws IOException {
        if (!Files.exists(real, LinkOption.NOFOLLOW_LINKS)) return;
        if (Files.isSymbolicLink(a)) Files.delete(a);
        if (Files.isDirectory(a, LinkOption.NOFOLLOW_LINKS)) TreeDelete.delete(a);
        Files.move(real, a, StandardCopyOption.ATOMIC_MOVE);
    }

    private static boolean isEmpty(Path dir) throws IOException {
        try (var l = Files.list(dir)) {
            return l.findAny().isEmpty();
        }
    }

    private static void putBack(Path a, Path real) throws IOException {
        if (!Files.exists(real, LinkOption.NOFOLLOW_LINKS)) return;
        if (Files.isSymbolicLink(a)) Files.delete(a);
        if (Files.isDirectory(a, LinkOption.NOFOLLOW_LINKS)) {
            Files.deleteIfExists(a.resolve("f.txt"));
            Files.delete(a);
        }
        Files.move(real, a, StandardCopyOption.ATOMIC_MOVE);
    }

    @Test
    @Timeout(120)
    void aFileSwappedForAFifoWhileWrittenNeverBlocksTheWrite() throws Exception {
        Path fifo = tmp.resolve("fifo");
        assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor()).isZero();
        Path regular = tmp.resolve("regular");
        Files.writeString(regular, "before");
        Path target = ws.resolve("a/f.txt");
        AtomicBoolean stop = new AtomicBoolean();
        Future<?> swapper = pool.submit(() -> {
            long n = 0;
            while (!stop.get()) {
                for (Path src : new Path[] {fifo, regular}) {
                    Path l = tmp.resolve("l-" + n++);
                    Files.createLink(l, src);
                    Files.move(l, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                }
            }
            return null;
        });
        int wrote = 0;
        int refused = 0;
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        try {
            while (System.nanoTime() < until) {
                Future<Path> w = pool.submit(() -> root.write("a/f.txt", "written".getBytes(StandardCharsets.UTF_8), "args.path"));
                try {
                    w.get(10, TimeUnit.SECONDS); // the old write opened a FIFO swapped in with O_WRONLY: blocked until a reader came
                    wrote++;
                } catch (java.util.concurrent.ExecutionException e) {
                    refused++;
                }
            }
        } finally {
            stop.set(true);
        }
        swapper.get(10, TimeUnit.SECONDS);
        System.out.println(wrote + " writes, " + refused + " refused");
        assertThat(refused).as("no write met the FIFO: the race was not exercised").isPositive();
        assertThat(Files.isRegularFile(fifo, LinkOption.NOFOLLOW_LINKS)).isFalse();
    }
}
