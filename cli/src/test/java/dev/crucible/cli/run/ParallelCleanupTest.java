package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 34, a run always ends, at its cleanup with {@code --parallel N}: the exit hook (SIGTERM, Ctrl-C) closed the open
 * attempts' scratches one after another, each up to its bound, so N attempts took N bounds. {@code AttemptScratch.closeAll}
 * closes them at once under one shared bound. Real state folders, each holding a tree slow to remove (many files, 000
 * folders); the peer, measured in the same run, is the old way: the same closes one after another.
 */
@Timeout(600)
class ParallelCleanupTest {
    private static final int ATTEMPTS = 3;
    private static final int FILES = Integer.getInteger("cleanup.files", 20_000);

    @Test
    void theOpenScratchesOfParallelAttemptsCloseTogetherInOneBound(@TempDir Path dir) throws Exception {
        long peerTree = removeOne(dir.resolve("calibrate"));
        Assumptions.assumeTrue(peerTree >= 400, "removing " + FILES + " entries took only " + peerTree + " ms: too fast to show a bound");
        Duration bound = Duration.ofMillis(peerTree / 4);

        List<AttemptScratch> one = open(dir.resolve("sequential"));
        long t = System.nanoTime();
        for (AttemptScratch s : one) s.close(bound); // what the exit hook did
        long sequentialMs = (System.nanoTime() - t) / 1_000_000;

        List<AttemptScratch> all = open(dir.resolve("together"));
        t = System.nanoTime();
        List<String> said = AttemptScratch.closeAll(bound, Duration.ofSeconds(30));
        long togetherMs = (System.nanoTime() - t) / 1_000_000;

        System.out.printf("[parallel-cleanup] %d attempts x %d entries; one tree unbounded %d ms; bound %d ms; one after another %d ms;"
                + " together %d ms; ratio %.2f%n", ATTEMPTS, FILES, peerTree, bound.toMillis(), sequentialMs, togetherMs,
                togetherMs / (double) sequentialMs);
        assertThat(sequentialMs).as("the peer: each close ran to its bound").isGreaterThanOrEqualTo(ATTEMPTS * bound.toMillis());
        assertThat(togetherMs).as("one bound for all, not %d", ATTEMPTS).isLessThan(2 * bound.toMillis() + 2_000).isLessThan(sequentialMs);
        for (AttemptScratch s : all) assertThat(s.stateDir()).as("gone from its place").doesNotExist();
        for (int i = 0; i < ATTEMPTS; i++) {
            assertThat(String.join("\n", said)).as("each attempt's leftover, named by its folder")
                    .contains(dir.resolve("together/attempt-" + i) + ": state folder ");
        }
        assertThat(said).hasSize(ATTEMPTS).allMatch(l -> l.contains("being removed by a detached rm -rf"));
    }

    private static List<AttemptScratch> open(Path base) throws Exception {
        List<AttemptScratch> out = new ArrayList<>();
        for (int i = 0; i < ATTEMPTS; i++) {
            AttemptScratch s = AttemptScratch.open(new AttemptDir(Files.createDirectories(base.resolve("attempt-" + i))), null, false);
            slowTree(s.stateDir().resolve("grade"));
            out.add(s);
        }
        return out;
    }

    private static long removeOne(Path root) throws Exception {
        slowTree(root);
        long t = System.nanoTime();
        dev.crucible.verifier.pristine.TreeCopy.delete(root, Duration.ofMinutes(5));
        return (System.nanoTime() - t) / 1_000_000;
    }

    /** {@link #FILES} empty files over 100 folders left mode 000: what makes an agent's tree slow to remove is its count. */
    private static void slowTree(Path root) throws Exception {
        Files.createDirectories(root);
        for (int d = 0; d < 100; d++) {
            Path f = Files.createDirectory(root.resolve("d" + d));
            for (int i = d; i < FILES; i += 100) Files.createFile(f.resolve("f" + i));
            Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("---------"));
        }
    }
}
