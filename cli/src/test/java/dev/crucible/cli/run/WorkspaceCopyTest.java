package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.files.CopyStats;
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
 * The attempt's copy of {@code spec.workspace.path} with what a workspace may hold: a 3 GiB sparse file
 * (host disk read with du), a FIFO (listed, never opened: the old copy blocked on it for good), links,
 * a .git folder and a gitdir file.
 */
class WorkspaceCopyTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(120)
    void sparseFilesStaySparseAndFifosAreListedNeverOpened() throws Exception {
        Path src = Files.createDirectories(dir.resolve("src/pkg"));
        Files.writeString(src.resolve("a.py"), "x = 1\n");
        try (RandomAccessFile f = new RandomAccessFile(src.resolve("big.img").toFile(), "rw")) {
            f.setLength(3L << 30);
        }
        assertThat(new ProcessBuilder("mkfifo", src.resolve("pipe").toString()).start().waitFor()).isZero();
        Files.createSymbolicLink(src.resolve("link.py"), Path.of("a.py"));
        Files.createDirectories(dir.resolve("src/.git/objects"));
        Files.createDirectories(dir.resolve("src/vendor/lib"));
        Files.writeString(dir.resolve("src/vendor/lib/.git"), "gitdir: ../../.git/modules/lib\n");

        Path out = dir.resolve("out/sandbox/workspace");
        CopyStats s = WorkspaceCopy.copy(dir.resolve("src"), out, List.of(dir.resolve("out")));
        long du = du(out);
        System.out.println("workspace copy with a 3 GiB sparse file: " + du + " bytes on the host (du), the copy said " + s.allocatedBytes());
        assertThat(du).isLessThan(1 << 20);
        assertThat(s.allocatedBytes()).isEqualTo(du);
        assertThat(Files.size(out.resolve("pkg/big.img"))).isEqualTo(3L << 30);
        assertThat(s.skipped()).extracting(CopyStats.Skipped::toString).containsExactly(
                "pkg/pipe: is a FIFO; not copied (a copy never opens one: a FIFO would block it, a device could be endless)");
        assertThat(Files.exists(out.resolve("pkg/pipe"), LinkOption.NOFOLLOW_LINKS)).isFalse();
        assertThat(Files.readSymbolicLink(out.resolve("pkg/link.py"))).isEqualTo(Path.of("a.py"));
        assertThat(out.resolve(".git")).doesNotExist();
        assertThat(Files.exists(out.resolve("vendor/lib/.git"), LinkOption.NOFOLLOW_LINKS)).isFalse();
        assertThat(out.resolve("vendor/lib")).isDirectory();
    }

    private static long du(Path p) throws Exception {
        Process proc = new ProcessBuilder("du", "-s", "-B1", p.toString()).start();
        String o = new String(proc.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(proc.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return Long.parseLong(o.split("\\s+")[0]);
    }
}
