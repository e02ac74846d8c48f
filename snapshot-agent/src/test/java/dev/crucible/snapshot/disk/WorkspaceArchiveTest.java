package dev.crucible.snapshot.disk;

import dev.crucible.snapshot.client.api.WorkspacePatch;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Restores that fail part-way leave their target as it was; archives that try to leave it fail. Real GNU tar. */
class WorkspaceArchiveTest {
    @TempDir
    Path tmp;

    @Test
    void aRestoreThatFailsMidwayLeavesTheTargetEmpty() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        for (int i = 0; i < 50; i++) Files.writeString(ws.resolve("f" + i + ".txt"), ("file " + i + "\n").repeat(2000));
        Path tar = tmp.resolve("ws.tar");
        WorkspaceArchive.capture(ws, tar);
        // garbage over the middle (more than one member long, so a header is hit): tar extracts the
        // first files, then fails on the broken header
        try (var ch = java.nio.channels.FileChannel.open(tar, java.nio.file.StandardOpenOption.WRITE)) {
            byte[] junk = new byte[16384];
            java.util.Arrays.fill(junk, (byte) 0xff);
            ch.write(java.nio.ByteBuffer.wrap(junk), Files.size(tar) / 2);
        }
        Path out = Files.createDirectories(tmp.resolve("out"));
        assertThatThrownBy(() -> WorkspaceArchive.restore(tar, null, out)).hasMessageContaining("tar --extract");
        assertThat(list(out)).isEmpty();

        Path absent = tmp.resolve("absent");
        assertThatThrownBy(() -> WorkspaceArchive.restore(tar, null, absent)).isInstanceOf(IllegalStateException.class);
        assertThat(absent).doesNotExist();
        assertThat(list(tmp)).containsExactlyInAnyOrder(ws, tar, out);
    }

    /**
     * A folder nested past PATH_MAX: tar archives it (it walks by descriptor) but no extraction can make it, so every restore
     * of such a snapshot failed. It is left out of the archive and listed; the rest restores.
     */
    @Test
    void aTreePastPathMaxIsLeftOutAndListedAndTheRestRestores() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Files.writeString(ws.resolve("a.txt"), "a");
        Files.createDirectories(ws.resolve("deep"));
        Process p = new ProcessBuilder("sh", "-c", "mkdir -p \"$(printf 'dd/%.0s' $(seq 2100))\"").directory(ws.resolve("deep").toFile())
                .inheritIO().start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0).isTrue();
        Path out = tmp.resolve("out");
        try {
            WorkspaceArchive.Archive a = WorkspaceArchive.capture(ws, tmp.resolve("ws.tar"));
            assertThat(a.leftOut()).singleElement().satisfies(l -> assertThat(l).startsWith("deep/dd/dd/dd").contains("PATH_MAX"));
            WorkspaceArchive.restore(a.file(), a.sha256(), out);
            assertThat(out.resolve("a.txt")).hasContent("a");
            assertThat(out.resolve("deep/dd/dd")).isDirectory();
        } finally {
            // GNU rm walks by descriptors; @TempDir's Java delete fails past PATH_MAX
            new ProcessBuilder("rm", "-rf", ws.toString(), out.toString()).inheritIO().start().waitFor();
        }
    }

    @Test
    void aRefusedPatchLeavesTheTargetEmpty() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Files.writeString(ws.resolve("a.txt"), "a");
        Path tar = tmp.resolve("ws.tar");
        WorkspaceArchive.Archive a = WorkspaceArchive.capture(ws, tar);
        Path out = Files.createDirectories(tmp.resolve("out"));
        assertThatThrownBy(() -> WorkspaceArchive.restore(tar, a.sha256(), out,
                staged -> WorkspacePatch.applyAll(List.of(new WorkspacePatch("../x", "x", null)), staged)))
                .hasMessageStartingWith("patches[0].path");
        assertThat(list(out)).isEmpty();
        WorkspaceArchive.restore(tar, a.sha256(), out, staged -> WorkspacePatch.applyAll(List.of(new WorkspacePatch("b.txt", "b", null)), staged));
        assertThat(list(out)).extracting(p -> p.getFileName().toString()).containsExactlyInAnyOrder("a.txt", "b.txt");
    }

    /** Archives written by hand (python's tarfile), as a rewritten image would be: links out, '..', hard links out. */
    @Test
    void membersThatLeaveTheTargetFailTheRestoreAndWriteNothingOutside() throws Exception {
        Path outside = Files.createDirectories(tmp.resolve("outside"));
        String script = String.join("\n",
                "import tarfile, io, sys",
                "def add(t, name, type=tarfile.REGTYPE, linkname=''):",
                "    ti = tarfile.TarInfo(name); ti.type = type; ti.linkname = linkname",
                "    if type == tarfile.REGTYPE:",
                "        ti.size = 1; t.addfile(ti, io.BytesIO(b'x'))",
                "    else:",
                "        t.addfile(ti)",
                "out, outside = sys.argv[1], sys.argv[2]",
                "with tarfile.open(out + '/sym.tar', 'w', format=tarfile.GNU_FORMAT) as t:",
                "    add(t, './ok.txt'); add(t, './link', tarfile.SYMTYPE, outside); add(t, './link/pwn')",
                "with tarfile.open(out + '/dotdot.tar', 'w', format=tarfile.GNU_FORMAT) as t:",
                "    add(t, './ok.txt'); add(t, '../pwn')",
                "with tarfile.open(out + '/hard.tar', 'w', format=tarfile.GNU_FORMAT) as t:",
                "    add(t, './ok.txt'); add(t, './h', tarfile.LNKTYPE, outside + '/f')",
                "");
        Process p = new ProcessBuilder("python3", "-c", script, tmp.toString(), outside.toString()).inheritIO().start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0).isTrue();
        for (String name : List.of("sym", "dotdot", "hard")) {
            Path out = Files.createDirectories(tmp.resolve("out-" + name));
            assertThatThrownBy(() -> WorkspaceArchive.restore(tmp.resolve(name + ".tar"), null, out)).as(name)
                    .isInstanceOf(IllegalStateException.class);
            assertThat(list(out)).as(name).isEmpty();
        }
        assertThat(list(outside)).isEmpty();
        assertThat(tmp.resolve("pwn")).doesNotExist();
    }

    private static List<Path> list(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.toList();
        }
    }
}
