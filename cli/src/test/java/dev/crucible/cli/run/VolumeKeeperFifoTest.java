package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The keeper walks the tree, then opens each regular file to copy it. An agent's file that turns into a FIFO between the two
 * (HostileReadersTest's flipping file, CI of 5aec33ef) made the read-only open wait for a writer, for good. The copy opens
 * read-write (never blocks on a FIFO) and seeks (a FIFO fails it): here a FIFO handed to the copy as the walk's regular file.
 */
class VolumeKeeperFifoTest {
    @TempDir
    Path dir;

    @Test
    void aFifoSwappedInAfterTheWalkIsNotKeptAndNothingWaits() throws Exception {
        Path fifo = dir.resolve("flip.py");
        assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor()).isZero();
        Path target = dir.resolve("kept-flip.py");
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> assertThatThrownBy(
                () -> VolumeKeeper.move(fifo, target, VolumeKeeper.Trims.everyPiece(null), false)).isInstanceOf(IOException.class));
        assertThat(target).as("no part copy in its place").doesNotExist();
        assertThat(fifo).as("the agent's entry is left where it was").exists();
    }

    @Test
    void aReadOnlyFileStillMoves() throws Exception {
        Path f = dir.resolve("ro.txt");
        Files.writeString(f, "kept\n");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("r--r--r--"));
        Path target = dir.resolve("kept-ro.txt");
        VolumeKeeper.move(f, target, VolumeKeeper.Trims.everyPiece(null), false);
        assertThat(target).hasContent("kept");
        assertThat(Files.getPosixFilePermissions(target)).isEqualTo(PosixFilePermissions.fromString("r--r--r--"));
        assertThat(f).doesNotExist();
    }
}
