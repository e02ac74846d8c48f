package dev.crucible.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.RandomAccessFile;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real sparse files, FIFOs, sockets and links, copied as an agent's workspace is: the destination's
 * disk use is read from the host (st_blocks through stat), not from what the copy says it did.
 */
class TreeCopierTest {
    private static final long GIB = 1L << 30;
    @TempDir
    Path tmp;
    Path src;
    Path dst;

    @BeforeEach
    void setUp() throws Exception {
        src = Files.createDirectory(tmp.resolve("src"));
        dst = tmp.resolve("dst");
    }

    @Test
    void aThreeGibibyteSparseFileStaysSparse() throws Exception {
        Path big = src.resolve("big.bin");
        try (RandomAccessFile f = new RandomAccessFile(big.toFile(), "rw")) { // truncate -s 3G, with a little data in the middle
            f.setLength(3 * GIB);
            f.seek(GIB);
            f.write("data in the middle".getBytes(StandardCharsets.UTF_8));
        }
        long t0 = System.nanoTime();
        CopyStats s = TreeCopier.copy(src, dst, TreeCopier.Options.of(TreeCopier.Links.AS_IS));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        Path copy = dst.resolve("big.bin");
        assertThat(Files.size(copy)).isEqualTo(3 * GIB);
        long allocated = stBlocks(copy) * 512;
        System.out.println("3 GiB sparse file: copy allocates " + allocated + " bytes (st_blocks), copy said " + s.allocatedBytes() + ", " + ms + " ms");
        assertThat(allocated).isLessThan(1 << 20);
        assertThat(s.allocatedBytes()).isLessThan(1 << 20).isPositive();
        assertThat(s.apparentBytes()).isEqualTo(3 * GIB);
        try (RandomAccessFile f = new RandomAccessFile(copy.toFile(), "r")) {
            byte[] b = new byte[18];
            f.seek(GIB);
            f.readFully(b);
            assertThat(new String(b, StandardCharsets.UTF_8)).isEqualTo("data in the middle");
        }
    }

    @Test
    void smallFilesKeepTheirHolesTheirBytesAndTheirMode() throws Exception {
        Path small = src.resolve("small.bin");
        try (RandomAccessFile f = new RandomAccessFile(small.toFile(), "rw")) { // under SparseFiles.JAVA_MAX: the Java path
            f.setLength(SparseFiles.JAVA_MAX);
            f.seek(5000);
            f.write(7);
        }
        Path script = Files.writeString(src.resolve("run.sh"), "#!/bin/sh\necho hi\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-x---"));
        Files.setLastModifiedTime(script, java.nio.file.attribute.FileTime.fromMillis(1_000_000_000_000L));
        CopyStats s = TreeCopier.copy(src, dst, TreeCopier.Options.of(TreeCopier.Links.AS_IS));
        assertThat(Files.readAllBytes(dst.resolve("small.bin"))).isEqualTo(Files.readAllBytes(small));
        assertThat(stBlocks(dst.resolve("small.bin")) * 512).isLessThanOrEqualTo(8192);
        assertThat(Files.readString(dst.resolve("run.sh"))).isEqualTo("#!/bin/sh\necho hi\n");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dst.resolve("run.sh")))).isEqualTo("rwxr-x---");
        assertThat(Files.getLastModifiedTime(dst.resolve("run.sh")).toMillis()).isEqualTo(1_000_000_000_000L);
        assertThat(s.files()).isEqualTo(2);
    }

    /**
     * A tree nested past PATH_MAX (made from inside, as an agent's mkdir -p does) is skipped and listed by its prefix; the
     * copy goes on with the rest. Before, creating its copy's folders failed with "File name too long" and the copy threw:
     * for {@code crucible run} and derive, the run's end.
     */
    @Test
    @Timeout(120)
    void aTreePastPathMaxIsSkippedAndListedAndTheRestCopied() throws Exception {
        Files.createDirectories(src.resolve("a"));
        Process p = new ProcessBuilder("sh", "-c", "mkdir -p \"$(printf 'dd/%.0s' $(seq 2100))\" && touch \"$(printf 'dd/%.0s' $(seq 900))bottom.py\"")
                .directory(src.resolve("a").toFile()).inheritIO().start();
        assertThat(p.waitFor()).isZero();
        Files.writeString(src.resolve("ok.txt"), "ok");
        try {
            CopyStats s = TreeCopier.copy(src, dst, TreeCopier.Options.of(TreeCopier.Links.AS_IS));
            assertThat(s.skipped()).extracting(CopyStats.Skipped::toString).singleElement()
                    .satisfies(t -> assertThat(t).startsWith("a/dd/dd/dd").contains("levels deep): " + DeepPaths.REASON));
            assertThat(dst.resolve("ok.txt")).hasContent("ok");
            // the shallow part is copied (its file at 900 levels included), nothing past the bound
            assertThat(dst.resolve("a/" + "dd/".repeat(900) + "bottom.py")).exists();
            assertThat(dst.resolve("a/" + "dd/".repeat(DeepPaths.MAX_RELATIVE / 3))).doesNotExist();
        } finally {
            // GNU rm walks by descriptors; @TempDir's Java delete fails past PATH_MAX
            new ProcessBuilder("rm", "-rf", src.toString(), dst.toString()).inheritIO().start().waitFor();
        }
    }

    @Test
    @Timeout(30)
    void fifosAndSocketsAreListedNeverOpened() throws Exception {
        Path fifo = src.resolve("HEAD");
        assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor()).isZero();
        Path sock = src.resolve("agent.sock");
        try (ServerSocketChannel ch = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.bind(UnixDomainSocketAddress.of(sock));
            Files.writeString(src.resolve("ok.txt"), "ok");
            CopyStats s = TreeCopier.copy(src, dst, TreeCopier.Options.of(TreeCopier.Links.AS_IS));
            assertThat(s.skipped()).extracting(CopyStats.Skipped::toString)
                    .anySatisfy(t -> assertThat(t).startsWith("HEAD: is a FIFO; not copied"))
                    .anySatisfy(t -> assertThat(t).startsWith("agent.sock: is a socket; not copied"));
        }
        assertThat(dst.resolve("HEAD")).doesNotExist();
        assertThat(dst.resolve("agent.sock")).doesNotExist();
        assertThat(dst.resolve("ok.txt")).hasContent("ok");
    }

    @Test
    @Timeout(30)
    void aDeviceIsListedNeverOpened() throws Exception {
        Path dev = src.resolve("zero");
        Process p = new ProcessBuilder("mknod", dev.toString(), "c", "1", "5").redirectErrorStream(true).start(); // /dev/zero's numbers
        assumeTrue(p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0, "mknod needs CAP_MKNOD (run as root): not tested here");
        CopyStats s = TreeCopier.copy(src, dst, TreeCopier.Options.of(TreeCopier.Links.AS_IS));
        assertThat(s.skipped()).extracting(CopyStats.Skipped::toString).containsExactly(
                "zero: is a character device; not copied (a copy never opens one: a FIFO would block it, a device could be endless)");
        assertThat(dst.resolve("zero")).doesNotExist();
    }

    @Test
    void linksAreCopiedAsLinksAndContainedOnesOnlyWhenAsked() throws Exception {
        Path secret = Files.writeString(tmp.resolve("secret"), "host secret");
        Files.createDirectories(src.resolve("docs"));
        Files.writeString(src.resolve("docs/README.md"), "readme");
        Files.createSymbolicLink(src.resolve("README.md"), Path.of("docs/README.md"));
        Files.createSymbolicLink(src.resolve("docs/self"), Path.of("."));
        Files.createSymbolicLink(src.resolve("later"), Path.of("build/generated.txt")); // dangling, inside
        Files.createSymbolicLink(src.resolve("abs"), secret);
        Files.createSymbolicLink(src.resolve("docs/up"), Path.of("../../secret"));
        Files.createSymbolicLink(src.resolve("hop"), Path.of("docs/up")); // relative, but through a link that leaves

        CopyStats asIs = TreeCopier.copy(src, dst, TreeCopier.Options.of(TreeCopier.Links.AS_IS));
        assertThat(asIs.links()).isEqualTo(6);
        assertThat(Files.readSymbolicLink(dst.resolve("abs"))).isEqualTo(secret); // text kept, never followed
        assertThat(Files.isRegularFile(dst.resolve("abs"), LinkOption.NOFOLLOW_LINKS)).isFalse();

        Path grading = tmp.resolve("grading");
        CopyStats c = TreeCopier.copy(src, grading, TreeCopier.Options.of(TreeCopier.Links.CONTAINED));
        assertThat(Files.readSymbolicLink(grading.resolve("README.md"))).isEqualTo(Path.of("docs/README.md"));
        assertThat(grading.resolve("README.md")).hasContent("readme");
        assertThat(Files.readSymbolicLink(grading.resolve("docs/self"))).isEqualTo(Path.of("."));
        assertThat(Files.readSymbolicLink(grading.resolve("later"))).isEqualTo(Path.of("build/generated.txt"));
        assertThat(grading.resolve("abs")).doesNotExist();
        assertThat(Files.exists(grading.resolve("docs/up"), LinkOption.NOFOLLOW_LINKS)).isFalse();
        assertThat(Files.exists(grading.resolve("hop"), LinkOption.NOFOLLOW_LINKS)).isFalse();
        assertThat(c.skipped()).extracting(CopyStats.Skipped::toString).containsExactlyInAnyOrder(
                "abs: is a link to the absolute path " + secret + "; a link kept in the tree must be relative and stay inside it",
                "docs/up: is a link to ../../secret, which leads out of the tree",
                "hop: is a link to docs/up, which leaves the tree through '..'");
    }

    @Test
    void skippedFoldersAndTheDestinationItselfAreNotCopied() throws Exception {
        Files.createDirectories(src.resolve(".git/objects"));
        Files.writeString(src.resolve(".git/HEAD"), "ref: refs/heads/main\n");
        Files.writeString(src.resolve("a.txt"), "a");
        Path inside = src.resolve("out");
        CopyStats s = TreeCopier.copy(src, inside, TreeCopier.Options.of(TreeCopier.Links.AS_IS).skipping(d -> d.getFileName().toString().equals(".git")));
        assertThat(inside.resolve("a.txt")).hasContent("a");
        assertThat(inside.resolve(".git")).doesNotExist();
        assertThat(inside.resolve("out")).doesNotExist();
        assertThat(s.files()).isEqualTo(1);
    }

    @Test
    @Timeout(30)
    void aLinkToDevZeroIsNeverReadAndAFileThatVanishedIsListed() throws Exception {
        Files.createSymbolicLink(src.resolve("zero"), Path.of("/dev/zero"));
        CopyStats asIs = TreeCopier.copy(src, dst, TreeCopier.Options.of(TreeCopier.Links.AS_IS));
        assertThat(Files.readSymbolicLink(dst.resolve("zero"))).isEqualTo(Path.of("/dev/zero"));
        assertThat(asIs.writtenBytes()).isZero();
        CopyStats contained = TreeCopier.copy(src, tmp.resolve("grading"), TreeCopier.Options.of(TreeCopier.Links.CONTAINED));
        assertThat(contained.skipped()).extracting(CopyStats.Skipped::path).containsExactly("zero");

        CopyStats s = new CopyStats();
        assertThat(TreeCopier.copyFile("gone.txt", src.resolve("gone.txt"), tmp.resolve("gone-copy.txt"), true, s)).isFalse();
        assertThat(s.skipped()).extracting(CopyStats.Skipped::toString).containsExactly("gone.txt: vanished while copied");
    }

    /**
     * Blind host round 5, B2: names of 255 bytes that are not UTF-8 (0xff...). Their text re-encodes each byte as three, so
     * a copy named by text was too long a name: FileSystemException ("File name too long") ended the whole copy (for
     * grading: "could not prepare grading", reward 0). Now each is copied under its own bytes, a folder so named too.
     */
    @Test
    void namesOf255BytesThatAreNotUtf8AreCopiedUnderTheirOwnBytes() throws Exception {
        Path odd = EntryNames.fromBytes(longOddName(1));
        Files.writeString(src.resolve(odd), "data");
        Path oddDir = Files.createDirectory(src.resolve(EntryNames.fromBytes(longOddName(2))));
        Files.writeString(oddDir.resolve("in.py"), "x = 1\n");
        Files.createSymbolicLink(src.resolve(EntryNames.fromBytes(longOddName(3))), Path.of("in.py"));
        CopyStats s = TreeCopier.copy(src, dst, TreeCopier.Options.of(TreeCopier.Links.AS_IS));
        assertThat(s.skipped()).isEmpty();
        assertThat(dst.resolve(odd)).hasContent("data");
        assertThat(dst.resolve(src.relativize(oddDir)).resolve("in.py")).hasContent("x = 1\n");
        assertThat(Files.readSymbolicLink(dst.resolve(EntryNames.fromBytes(longOddName(3))))).isEqualTo(Path.of("in.py"));
        // a link so named cannot be checked for containment by name: left out and listed, the copy goes on
        CopyStats contained = TreeCopier.copy(src, tmp.resolve("grading"), TreeCopier.Options.of(TreeCopier.Links.CONTAINED));
        assertThat(tmp.resolve("grading").resolve(odd)).hasContent("data");
        assertThat(contained.skipped()).singleElement().satisfies(k -> assertThat(k.reason()).contains("not valid UTF-8"));
    }

    /** 247 bytes 0xff and 8 digits: 255 bytes, the longest name ext4 takes, and none of it UTF-8 but the digits. */
    static byte[] longOddName(int i) {
        byte[] b = new byte[255];
        java.util.Arrays.fill(b, (byte) 0xff);
        byte[] tag = String.format("%08d", i).getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(tag, 0, b, 247, 8);
        return b;
    }

    /** st_blocks of {@code p}, from the host's stat (512-byte units). */
    static long stBlocks(Path p) throws Exception {
        Process proc = new ProcessBuilder("stat", "-c", "%b", p.toString()).start();
        String out = new String(proc.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(proc.waitFor(Duration.ofSeconds(10).toSeconds(), TimeUnit.SECONDS)).isTrue();
        return Long.parseLong(out);
    }
}
