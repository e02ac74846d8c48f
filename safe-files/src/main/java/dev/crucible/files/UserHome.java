package dev.crucible.files;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The home folder Crucible keeps its caches under (execution environments, snapshots, CEL). Java's {@code user.home} is
 * {@code "?"} when the process's uid has no passwd entry (a container's arbitrary uid, {@code setpriv}, the attack suite's
 * uid 64123), and a path built on it is relative: the caches landed in a folder named {@code ?} under whatever folder the
 * CLI was started in. Then {@code $HOME} when it is an absolute folder this process can write, else a private (0700)
 * temporary folder made once for the process, said on stderr and removed when the process ends.
 */
public final class UserHome {
    private static volatile Path fallback;

    private UserHome() {}

    public static Path path() {
        String home = System.getProperty("user.home");
        if (usable(home)) return Path.of(home);
        String env = System.getenv("HOME");
        if (usable(env)) return Path.of(env);
        return temporary(home);
    }

    private static boolean usable(String p) {
        if (p == null || p.isBlank() || !p.startsWith("/")) return false;
        Path d = Path.of(p);
        return Files.isDirectory(d) && Files.isWritable(d);
    }

    private static synchronized Path temporary(String said) {
        if (fallback != null) return fallback;
        try {
            fallback = Files.createTempDirectory("crucible-home-", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } catch (IOException e) {
            throw new UncheckedIOException("no home folder: user.home is " + said + ", HOME is " + System.getenv("HOME")
                    + ", and no temporary one could be made", e);
        }
        System.err.println("crucible: this uid has no usable home folder (user.home " + said + ", HOME " + System.getenv("HOME")
                + "): caches go to " + fallback + " for this run");
        // for this run only: each run as such a uid left its 25 MB folder behind (host round 6, P4); a SIGKILL still does
        Path made = fallback;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                TreeDelete.delete(made);
            } catch (IOException | RuntimeException e) {
                // the temporary folder's own clean-up is the OS's
            }
        }, "crucible-temporary-home"));
        return fallback;
    }
}
