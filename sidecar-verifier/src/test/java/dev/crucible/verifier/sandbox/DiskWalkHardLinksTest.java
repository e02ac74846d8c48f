package dev.crucible.verifier.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The disk limit's walk where no volume holds it (the grading box's writable folders, every 2 s). Host round 7, case 16:
 * 3,000 hard links to one 60 MB file read as 171,718 MiB, and grading of an honest fix was ended for a 256Mi limit the
 * 60 MB never passed (the run Hacked at 0). A file is counted once, whatever names it has, in one folder or several.
 */
class DiskWalkHardLinksTest {
    @TempDir
    Path dir;

    @Test
    void aFileWithManyNamesIsCountedOnce() throws Exception {
        Path a = Files.createDirectories(dir.resolve("a"));
        Path b = Files.createDirectories(dir.resolve("b"));
        Files.write(a.resolve("data.bin"), new byte[1 << 20]);
        for (int i = 0; i < 100; i++) Files.createLink(a.resolve("l" + i), a.resolve("data.bin"));
        Files.createLink(b.resolve("there"), a.resolve("data.bin"));
        Files.write(b.resolve("own.bin"), new byte[4096]);
        assertThat(BoxEnforcement.size(a)).isEqualTo(1 << 20);
        Set<Object> counted = new HashSet<>();
        assertThat(BoxEnforcement.size(a, counted) + BoxEnforcement.size(b, counted)).as("across the writable folders").isEqualTo((1 << 20) + 4096);
    }
}
