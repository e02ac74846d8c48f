package dev.crucible.cli.attacks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 34: a CLI whose uid has no passwd entry (the suite's uid 64123, a container's arbitrary uid) reads Java's
 * {@code user.home} as {@code "?"}: the execution-environment cache and the snapshot store were then relative paths,
 * {@code ./?/.local/share/crucible/envs} under whatever folder it ran in. A real JVM as that uid, with no HOME, prints
 * where they go: an absolute, private (0700) temporary home of its own; with HOME set, under HOME.
 */
@Tag("attacks")
@Timeout(120)
class NoPasswdHomeTest {

    @Test
    void aUidWithoutPasswdEntryGetsARealTemporaryHome() throws Exception {
        CliProcess.assumeRoot(); // to become the throwaway uid
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "setpriv is missing");
        Assumptions.assumeTrue(new ProcessBuilder("getent", "passwd", "" + CliProcess.THROWAWAY_UID).start().waitFor() != 0,
                "uid " + CliProcess.THROWAWAY_UID + " has a passwd entry here");
        Path cwd = Files.createTempDirectory(Path.of("/var/tmp"), "crucible-nopasswd-");
        try {
            Files.setPosixFilePermissions(cwd, PosixFilePermissions.fromString("rwx------"));
            CliProcess.chown(cwd, CliProcess.THROWAWAY_UID);
            String[] noHome = probe(cwd, null);
            assertThat(noHome[0]).as("Java's own reading, the cause").isEqualTo("?");
            for (int i = 1; i < 3; i++) {
                assertThat(noHome[i]).as("no relative '?' path").startsWith("/").doesNotContain("/?/");
                assertThat(noHome[i]).startsWith(Path.of(System.getProperty("java.io.tmpdir"), "crucible-home-").toString());
            }
            Path home = Path.of(noHome[1]).getParent().getParent().getParent().getParent(); // .../crucible-home-X/.local/share/crucible/envs
            assertThat(noHome[3]).as("the temporary home is the uid's own, 0700, while the process runs").isEqualTo(CliProcess.THROWAWAY_UID + " rwx------");
            assertThat(home).as("and removed when it ends (host round 6, P4: each run left 25 MB)").doesNotExist();
            assertThat(cwd.resolve("?")).doesNotExist();

            String[] withHome = probe(cwd, cwd);
            assertThat(withHome[1]).isEqualTo(cwd + "/.local/share/crucible/envs");
            assertThat(withHome[2]).isEqualTo(cwd + "/.cache/crucible/snapshots");
        } finally {
            AttackHost.delete(cwd);
        }
    }

    /** user.home, the env cache root and the snapshot store, as the throwaway uid sees them (HOME unset when {@code home} is null). */
    private static String[] probe(Path cwd, Path home) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("setpriv", "--reuid=" + CliProcess.THROWAWAY_UID, "--regid=" + CliProcess.THROWAWAY_UID,
                "--clear-groups", "env", "-i", "PATH=/usr/local/bin:/usr/bin:/bin"));
        if (home != null) cmd.add("HOME=" + home);
        cmd.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp", CliProcess.readableClasspath(),
                Probe.class.getName()));
        Process p = new ProcessBuilder(cmd).directory(cwd.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String line = out.lines().filter(l -> l.startsWith("HOMES ")).findFirst().orElseThrow(() -> new AssertionError(out));
        return line.substring(6).split("\t");
    }

    /** Run as the throwaway uid: prints the three paths. */
    public static final class Probe {
        public static void main(String[] args) {
            Path envs = dev.crucible.verifier.toolchain.ExecEnvironments.cacheRoot();
            String owner;
            try {
                Path home = envs.getParent().getParent().getParent().getParent();
                owner = Files.getAttribute(home, "unix:uid") + " " + PosixFilePermissions.toString(Files.getPosixFilePermissions(home));
            } catch (java.io.IOException | RuntimeException e) {
                owner = "unreadable: " + e;
            }
            System.out.println("HOMES " + System.getProperty("user.home") + "\t" + envs + "\t" + dev.crucible.cli.run.SnapshotPolicy.defaultStore()
                    + "\t" + owner);
        }
    }
}
