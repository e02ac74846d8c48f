package dev.crucible.cli.attacks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.api.v1alpha1.common.ResourcesSpec;
import dev.crucible.cli.run.AttemptDir;
import dev.crucible.files.TreeDelete;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 34 point 2, a run always ends, at its cleanup: after result.json an attempt's state folder is removed and its
 * workspace moved off its volume ({@code AttemptScratch.close}), and a tree the agent's files made slow to remove (many
 * entries, deep, 000 folders) must not hold the CLI for as long as that takes. Each case measures the peer in the same
 * run: the same tree removed without a bound ({@link TreeDelete}, what the close did before), then closes the real
 * scratch with a bound a tenth of that, and checks that it ended well before the peer, said what it left and where, and
 * that what it handed off is removed afterwards all the same. As root (a temporary state folder; a loop-mounted volume
 * whose workspace is too big to move in the bound) and as the throwaway uid 64123 (setpriv, a JVM of its own: no root,
 * so no volume here, and 000 folders only their owner's rights can open).
 */
@Tag("attacks")
@Timeout(900)
class CleanupBoundAttackTest {
    /** Entries of the slow tree (-Dcleanup.files): enough that removing them takes seconds on this kind of machine. */
    static final int FILES = Integer.getInteger("cleanup.files", 60_000);

    @Test
    void stateFolderAsRoot() throws Exception {
        CliProcess.assumeRoot();
        Path base = Files.createTempDirectory("crucible-cleanup-root-");
        try {
            System.out.println("[cleanup-bound] root, no volume: " + noVolume(base));
        } finally {
            HostileKinds.run("rm", "-rf", "--one-file-system", base.toString());
        }
    }

    @Test
    void stateFolderAsUnprivilegedUser() throws Exception {
        CliProcess.assumeRoot(); // to become the throwaway uid
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "no unprivileged run: setpriv is missing");
        Path home = Files.createTempDirectory(Path.of("/var/tmp"), "crucible-cleanup-user-");
        try {
            Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwx------"));
            CliProcess.chown(home, CliProcess.THROWAWAY_UID);
            Path log = home.resolve("cleanup.log");
            List<String> cmd = new ArrayList<>(List.of("setpriv", "--reuid=" + CliProcess.THROWAWAY_UID, "--regid=" + CliProcess.THROWAWAY_UID,
                    "--clear-groups", "env", "PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home, "LANG=C.UTF-8",
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m", "-Djava.io.tmpdir=" + home,
                    "-Dcleanup.files=" + FILES, "-cp", (CliProcess.BEFORE == null ? "" : CliProcess.BEFORE + java.io.File.pathSeparator) + CliProcess.readableClasspath(), CleanupBoundAttackTest.class.getName(), home.toString()));
            Process p = new ProcessBuilder(cmd).directory(home.toFile()).redirectErrorStream(true).redirectOutput(log.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
            boolean ended = p.waitFor(600, TimeUnit.SECONDS);
            if (!ended) p.destroyForcibly();
            String out = Files.readString(log);
            System.out.println(out.lines().filter(l -> l.startsWith("[cleanup-bound]") || l.startsWith("RESULT")).reduce("", (a, b) -> a + b + "\n"));
            String result = out.lines().filter(l -> l.startsWith("RESULT ")).findFirst().orElse("RESULT FAIL no result line; output: " + out);
            if (result.startsWith("RESULT SKIP")) Assumptions.abort(result.substring(12));
            assertThat(result).as("the check as uid " + CliProcess.THROWAWAY_UID).startsWith("RESULT PASS");
        } finally {
            HostileKinds.run("rm", "-rf", "--one-file-system", home.toString());
        }
    }

    /** The unprivileged half: {@code args[0]} is this uid's own folder (also its temporary folder). */
    public static void main(String[] args) {
        String status;
        try {
            String uid = Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith("Uid:")).findFirst().orElse("?");
            System.out.println("[cleanup-bound] " + uid.replaceAll("\\s+", " ") + ", no volume: "
                    + noVolume(Files.createTempDirectory(Path.of(args[0]), "cleanup-")));
            status = "PASS";
        } catch (org.opentest4j.TestAbortedException e) {
            status = "SKIP " + e.getMessage();
        } catch (Throwable e) {
            status = "FAIL " + String.valueOf(e).replace('\n', ' ');
        }
        System.out.println("RESULT " + status);
        System.exit(0);
    }

    @Test
    void volumeAsRoot() throws Exception {
        CliProcess.assumeRoot();
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/sbin/mkfs.ext4")), "mkfs.ext4 is missing (apt-get install -y e2fsprogs)");
        Path base = Files.createTempDirectory(Path.of("/var/tmp"), "crucible-cleanup-volume-");
        try {
            long peerMs = peer(base.resolve("peer"), FILES / 2);
            AttemptDir dir = new AttemptDir(Files.createDirectories(base.resolve("attempt-0")));
            ResourcesSpec r = new ResourcesSpec();
            r.ephemeralStorage = "1Gi";
            Object s = open(dir, r, true);
            Assumptions.assumeTrue(call(s, "volume") != null, "no volume here: " + call(s, "describe"));
            Path state = (Path) call(s, "stateDir");
            slowTree(state.resolve("grade"), FILES / 4);
            slowTree(dir.sandbox().resolve("workspace"), FILES / 2); // too many to move off the volume in the bound
            Files.writeString(dir.sandbox().resolve("workspace/a-first.py"), "print('kept')\n"); // sorted first: moved
            Duration bound = Duration.ofMillis(Math.max(3_000, peerMs / 10)); // the first trim (fstrim) comes out of it too
            long t = System.nanoTime();
            List<String> left = close(s, bound);
            long closeMs = (System.nanoTime() - t) / 1_000_000;
            System.out.println("[cleanup-bound] root, loop volume: " + FILES / 2 + "-entry workspace and " + FILES / 4 + " in the state folder;"
                    + " unbounded removal of " + FILES / 2 + " entries " + peerMs + " ms; bound " + bound.toMillis() + " ms; close "
                    + closeMs + " ms (unmount included); left " + left);
            assertThat(Files.readString(Path.of("/proc/self/mounts"))).as("nothing left mounted").doesNotContain(dir.root().toString());
            assertThat(dir.root().resolve(".sandbox.img")).as("the image deleted").doesNotExist();
            assertThat(dir.root().resolve("not-kept.txt")).content().as("the rest of the workspace, named").contains("(the rest, from");
            assertThat(String.join("\n", left)).contains("workspace: the rest, from", "went with it");
            assertThat(dir.root().resolve("left-behind.txt")).content().contains("workspace: the rest");
            assertThat(dir.sandbox().resolve("workspace/a-first.py")).as("what was moved in time is kept").hasContent("print('kept')");
            // the volume's unmount and fstrim are not the tree's: bounded by themselves, not by the bound given here
            assertThat(closeMs).as("close ended well before moving the whole workspace would (peer " + peerMs + " ms)").isLessThan(bound.toMillis() + 30_000);
        } finally {
            HostileKinds.run("rm", "-rf", "--one-file-system", base.toString());
        }
    }

    /**
     * The state folder (no volume) holds a slow tree; closed with a tenth of the peer's time it ends in well under the peer,
     * the folder gone from its place, handed to a detached removal that empties it. Returns the figures.
     */
    static String noVolume(Path base) throws Exception {
        long peerMs = peer(base.resolve("peer"), FILES);
        Assumptions.assumeTrue(peerMs >= 300, "removing " + FILES + " entries took only " + peerMs + " ms here: too fast to show a bound (raise -Dcleanup.files)");
        AttemptDir dir = new AttemptDir(Files.createDirectories(base.resolve("attempt-0")));
        Object s = open(dir, null, false);
        Path state = (Path) call(s, "stateDir");
        slowTree(state.resolve("grade"), FILES);
        Duration bound = Duration.ofMillis(Math.max(50, peerMs / 10));
        long t = System.nanoTime();
        List<String> left = close(s, bound);
        long closeMs = (System.nanoTime() - t) / 1_000_000;
        String figures = FILES + " entries: unbounded removal " + peerMs + " ms; bound " + bound.toMillis() + " ms; close " + closeMs + " ms; left " + left;
        assertThat(closeMs).as(figures).isLessThan(peerMs / 2);
        assertThat(state).as("the state folder is gone from its place").doesNotExist();
        String said = String.join("\n", left);
        assertThat(said).as("what was left, and where").contains("state folder", "being removed by a detached rm -rf", "not removed within");
        assertThat(dir.root().resolve("left-behind.txt")).content().contains("being removed by a detached rm -rf");
        Path moved = Path.of(said.substring(said.indexOf("state folder ") + 13, said.indexOf(": being removed")));
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
        while (Files.exists(moved, LinkOption.NOFOLLOW_LINKS) && System.nanoTime() < until) Thread.sleep(500);
        assertThat(moved).as("the detached removal emptied what was handed off (000 folders included)").doesNotExist();
        return figures;
    }

    /** Builds the slow tree in {@code root} and removes it unbounded: the milliseconds that took. */
    private static long peer(Path root, int files) throws Exception {
        slowTree(root, files);
        long t = System.nanoTime();
        TreeDelete.delete(root);
        return (System.nanoTime() - t) / 1_000_000;
    }

    /**
     * {@code files} empty files: most spread over 100 folders left mode 000, the rest along a chain of folders 300 deep whose
     * deepest folder is 000 too. The shapes an agent's tree has; the count is what makes it slow.
     */
    static void slowTree(Path root, int files) throws Exception {
        Path wide = Files.createDirectories(root.resolve("wide"));
        int inWide = files * 9 / 10;
        List<Path> locked = new ArrayList<>();
        for (int d = 0; d < 100; d++) {
            Path f = Files.createDirectory(wide.resolve("d" + d));
            for (int i = d; i < inWide; i += 100) Files.createFile(f.resolve("f" + i));
            locked.add(f);
        }
        Path deep = root.resolve("deep");
        int perLevel = Math.max(1, (files - inWide) / 300);
        for (int level = 0; level < 300; level++) {
            deep = Files.createDirectories(deep.resolve("d"));
            for (int i = 0; i < perLevel; i++) Files.createFile(deep.resolve("f" + i));
        }
        locked.add(deep);
        for (Path f : locked) Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("---------"));
    }

    private static Object open(AttemptDir dir, ResourcesSpec r, boolean volume) throws Exception {
        Method m = Class.forName("dev.crucible.cli.run.AttemptScratch").getDeclaredMethod("open", AttemptDir.class, ResourcesSpec.class, boolean.class);
        m.setAccessible(true);
        return m.invoke(null, dir, r, volume);
    }

    /**
     * close(bound) and what it says it left; on code without a bound (before the fix) close() and an empty list, so the
     * same case measures what the cleanup did then.
     */
    @SuppressWarnings("unchecked")
    private static List<String> close(Object s, Duration bound) throws Exception {
        Method m;
        try {
            m = s.getClass().getDeclaredMethod("close", Duration.class);
        } catch (NoSuchMethodException before) {
            s.getClass().getDeclaredMethod("close").invoke(s);
            return List.of();
        }
        m.setAccessible(true);
        m.invoke(s, bound);
        return (List<String>) call(s, "leftBehind");
    }

    private static Object call(Object s, String name) throws Exception {
        Method m = s.getClass().getDeclaredMethod(name);
        m.setAccessible(true);
        return m.invoke(s);
    }
}
