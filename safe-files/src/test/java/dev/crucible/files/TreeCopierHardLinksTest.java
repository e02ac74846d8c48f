package dev.crucible.files;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * rt34 hardlink-amplify: one file with many hard links is copied once, its other names hard links to that copy, so the
 * copy takes on the host what the source takes. Before, each name was a full copy: 64 MiB with 40 names became 2.7 GB in
 * grading's copy. Disk use is read from the host (du), not from what the copy reports.
 */
class TreeCopierHardLinksTest {
    private static final int SIZE = 4 << 20;
    private static final int NAMES = 20;
    @TempDir
    Path tmp;

    private Path linkedSource() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src/calc"));
        byte[] data = new byte[SIZE];
        new Random(34).nextBytes(data); // not zeros: a sparse copy would hide the amplification
        Files.write(src.resolve("h0.bin"), data);
        for (int i = 1; i <= NAMES; i++) Files.createLink(src.resolve("h" + i + ".bin"), src.resolve("h0.bin"));
        Files.writeString(src.resolve("other.py"), "x = 1\n");
        return src.getParent();
    }

    @Test
    void aTreeCopyKeepsHardLinksAsLinks() throws Exception {
        Path src = linkedSource();
        Path dst = tmp.resolve("dst");
        CopyStats s = TreeCopier.copy(src, dst, TreeCopier.Options.of(TreeCopier.Links.AS_IS));
        assertThat(CopyStats.allocated(dst)).as("host disk of the copy").isLessThan(2L * SIZE);
        assertThat(s.hardLinks()).isEqualTo(NAMES);
        for (int i = 1; i <= NAMES; i++) {
            assertThat(Files.isSameFile(dst.resolve("calc/h" + i + ".bin"), dst.resolve("calc/h0.bin"))).isTrue();
        }
        assertThat(Files.mismatch(dst.resolve("calc/h7.bin"), src.resolve("calc/h0.bin"))).isEqualTo(-1L);
        assertThat(Files.readString(dst.resolve("calc/other.py"))).isEqualTo("x = 1\n");
        assertThat(Files.isSameFile(dst.resolve("calc/other.py"), dst.resolve("calc/h0.bin"))).isFalse();
    }

    @Test
    void fileByFileCopiesSharingTheirStatsKeepThemToo() throws Exception {
        // as the grading tree is built: one copyFile per workspace file, one CopyStats for the whole tree
        Path src = linkedSource();
        Path dst = Files.createDirectories(tmp.resolve("grade/calc"));
        CopyStats s = new CopyStats();
        for (int i = 0; i <= NAMES; i++) {
            String rel = "calc/h" + i + ".bin";
            assertThat(TreeCopier.copyFile(rel, src.resolve(rel), dst.getParent().resolve(rel), false, s)).isTrue();
        }
        assertThat(CopyStats.allocated(dst)).isLessThan(2L * SIZE);
        // a name whose first copy was removed meanwhile is copied in full, not lost
        Files.delete(dst.resolve("h0.bin"));
        Files.delete(dst.resolve("h3.bin"));
        assertThat(TreeCopier.copyFile("calc/h3.bin", src.resolve("calc/h3.bin"), dst.resolve("h3.bin"), false, s)).isTrue();
        assertThat(Files.mismatch(dst.resolve("h3.bin"), src.resolve("calc/h0.bin"))).isEqualTo(-1L);
    }
}
