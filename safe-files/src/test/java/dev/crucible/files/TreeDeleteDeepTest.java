package dev.crucible.files;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A run's tree nested past PATH_MAX (an agent's mkdir loop by descriptors, 3000 levels) is removed fully by
 * {@link TreeDelete}: by descriptor-relative operations, never following the links in it, with a bounded number of
 * descriptors held, and stopping when told. Before, the path-based walk threw {@code File name too long} and left the
 * tree (the run's state folder stayed behind).
 */
class TreeDeleteDeepTest {
    private Path dir;
    private Path canary;

    @BeforeEach
    void make() throws Exception {
        dir = Files.createTempDirectory("tree-delete-deep-");
        canary = Files.createTempDirectory("tree-delete-canary-");
        Files.writeString(canary.resolve("keep.txt"), "host file");
    }

    @AfterEach
    void remove() throws Exception {
        // GNU rm walks by descriptors: whatever a failing case left
        new ProcessBuilder("rm", "-rf", dir.toString(), canary.toString()).inheritIO().start().waitFor();
    }

    /** {@code levels} folders "dd" under the tree's "deep", with a link to the canary folder, a FIFO and a 000 folder at the bottom. */
    private void deepTree(int levels) throws Exception {
        String py = "import os\nfd = os.open('.', os.O_RDONLY)\nos.mkdir('deep', dir_fd=fd)\n"
                + "n = os.open('deep', os.O_RDONLY, dir_fd=fd); os.close(fd); fd = n\n"
                + "for i in range(" + levels + "):\n    os.mkdir('dd', dir_fd=fd)\n"
                + "    if i % 500 == 0: os.symlink('" + canary + "', 'out' + str(i), dir_fd=fd)\n"
                + "    n = os.open('dd', os.O_RDONLY, dir_fd=fd); os.close(fd); fd = n\n"
                + "os.symlink('" + canary + "', 'host', dir_fd=fd)\nos.mkfifo('fifo', dir_fd=fd)\n"
                + "f = os.open('bottom.py', os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd); os.write(f, b'x = 1\\n'); os.close(f)\n"
                + "os.mkdir('locked', dir_fd=fd)\nl = os.open('locked', os.O_RDONLY, dir_fd=fd)\nos.mkdir('inner', dir_fd=l)\n"
                + "os.chmod('locked', 0, dir_fd=fd)\nos.chmod('.', 0o500, dir_fd=fd)\n";
        Process p = new ProcessBuilder("python3", "-c", py).directory(dir.toFile()).inheritIO().start();
        assertThat(p.waitFor()).isZero();
        Files.writeString(dir.resolve("top.txt"), "top");
    }

    @Test
    @Timeout(300)
    void aTreePastPathMaxIsRemovedFullyWithoutFollowingItsLinks() throws Exception {
        deepTree(3000);
        AtomicInteger maxFds = new AtomicInteger();
        AtomicLong calls = new AtomicLong();
        long t0 = System.nanoTime();
        TreeDelete.delete(dir, () -> {
            if (calls.incrementAndGet() % 50 == 0) maxFds.accumulateAndGet(openDescriptors(), Math::max);
            return false;
        });
        long ms = (System.nanoTime() - t0) / 1_000_000;
        System.out.println("removed 3000 levels in " + ms + " ms, " + calls.get() + " entries, at most " + maxFds.get() + " descriptors open");
        assertThat(dir).doesNotExist();
        assertThat(canary.resolve("keep.txt")).hasContent("host file");
        // the held folders are bounded, not one per level (3000 levels would be 3000 descriptors)
        assertThat(maxFds.get()).isLessThan(TreeDelete.MAX_OPEN + 200);
    }

    @Test
    @Timeout(300)
    void aStoppedRemovalLeavesTheRestUnderTheTreeAndAFreshOneFinishesIt() throws Exception {
        deepTree(1500);
        AtomicLong calls = new AtomicLong();
        TreeDelete.delete(dir, () -> calls.incrementAndGet() > 400);
        assertThat(calls.get()).isLessThanOrEqualTo(402);
        assertThat(Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)).as("stopped early: the rest is still under the tree").isTrue();
        try (var s = Files.list(dir.getParent())) {
            assertThat(s.filter(x -> x.getFileName().toString().startsWith(".crucible-delete-")).toList()).as("nothing moved out of the tree").isEmpty();
        }
        TreeDelete.delete(dir);
        assertThat(dir).doesNotExist();
        assertThat(canary.resolve("keep.txt")).hasContent("host file");
    }

    /**
     * As a non-root CLI meets it: the tree is the CLI user's own, with folders its agent made unreadable (000) and
     * unwritable (0500) at every depth, and removing them needs their mode changed first, through the held descriptor
     * (no path reaches them). Run as uid 64123 in a JVM of its own (setpriv), where this test is root.
     */
    @Test
    @Timeout(300)
    void anUnprivilegedOwnerRemovesItsLockedFoldersAtAnyDepth() throws Exception {
        boolean root = "root".equals(System.getProperty("user.name"));
        Assumptions.assumeTrue(root && Files.isExecutable(Path.of("/usr/bin/setpriv")), "needs root and setpriv to run as uid " + UID);
        Path classes = Path.of(TreeDelete.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path tests = Path.of(TreeDeleteDeepTest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Assumptions.assumeTrue(asUid("test", "-r", classes.resolve("dev/crucible/files/TreeDelete.class").toString()) == 0,
                "the classes in " + classes + " are not readable by uid " + UID);
        Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
        Path tree = dir.resolve("owned");
        String py = "import os, sys\nos.mkdir(sys.argv[1]); fd = os.open(sys.argv[1], os.O_RDONLY)\nlocked = []\n"
                + "for i in range(3000):\n    os.mkdir('dd', dir_fd=fd)\n"
                + "    if i % 700 == 3:\n        os.mkdir('locked', dir_fd=fd); l = os.open('locked', os.O_RDONLY, dir_fd=fd)\n"
                + "        os.mkdir('in', dir_fd=l); os.close(l); os.chmod('locked', 0, dir_fd=fd)\n"
                + "    n = os.open('dd', os.O_RDONLY, dir_fd=fd)\n"
                + "    if i % 900 == 5: locked.append(fd)\n    else: os.close(fd)\n    fd = n\n"
                + "os.symlink('" + canary + "', 'host', dir_fd=fd)\nos.mkfifo('ff', dir_fd=fd)\n"
                + "for d in locked: os.chmod('dd', 0o500, dir_fd=d)\nos.chmod('.', 0, dir_fd=fd)\n";
        assertThat(asUid("/usr/bin/python3", "-c", py, tree.toString())).isZero();
        String jvm = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        assertThat(asUid(jvm, "-cp", classes + java.io.File.pathSeparator + tests, TreeDeleteDeepTest.class.getName(), tree.toString()))
                .as("TreeDelete as uid " + UID).isZero();
        assertThat(Files.exists(tree, LinkOption.NOFOLLOW_LINKS)).isFalse();
        assertThat(canary.resolve("keep.txt")).hasContent("host file");
    }

    /** What the uid's JVM runs: removes the tree named by its argument. */
    public static void main(String[] args) throws Exception {
        TreeDelete.delete(Path.of(args[0]));
    }

    private static final int UID = 64123;

    private static int asUid(String... cmd) throws Exception {
        java.util.List<String> all = new java.util.ArrayList<>(java.util.List.of("/usr/bin/setpriv", "--reuid=" + UID, "--regid=" + UID, "--clear-groups"));
        all.addAll(java.util.List.of(cmd));
        Process p = new ProcessBuilder(all).inheritIO().start();
        return p.waitFor(240, java.util.concurrent.TimeUnit.SECONDS) ? p.exitValue() : -1;
    }

    @Test
    void aLinkGivenAsTheTreeIsRemovedNotItsTarget() throws Exception {
        Path link = dir.resolve("link");
        Files.createSymbolicLink(link, canary);
        TreeDelete.delete(link);
        assertThat(Files.exists(link, LinkOption.NOFOLLOW_LINKS)).isFalse();
        assertThat(canary.resolve("keep.txt")).hasContent("host file");
    }

    private static int openDescriptors() {
        try (var s = Files.list(Path.of("/proc/self/fd"))) {
            return (int) s.count();
        } catch (java.io.IOException e) {
            return 0;
        }
    }
}
