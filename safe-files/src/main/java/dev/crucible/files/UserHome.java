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
            fallback = Files.createTempDirectory(PREFIX + owner(ProcessHandle.current()) + "-", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } catch (IOException e) {
            throw new UncheckedIOException("no home folder: user.home is " + said + ", HOME is " + System.getenv("HOME")
                    + ", and no temporary one could be made", e);
        }
        System.err.println("crucible: this uid has no usable home folder (user.home " + said + ", HOME " + System.getenv("HOME")
                + "): caches go to " + fallback + " for this run");
        // for this run only: each run as such a uid left its 25 MB folder behind (host round 6, P4); one a SIGKILLed run left
        // is removed by the next such run (sweep)
        Path made = fallback;
        sweep(made.getParent(), made);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                TreeDelete.delete(made);
            } catch (IOException | RuntimeException e) {
                // the temporary folder's own clean-up is the OS's
            }
        }, "crucible-temporary-home"));
        return fallback;
    }

    private static final String PREFIX = "crucible-home-";

    /** "PID-STARTMILLIS": names the process a temporary home is for, the start telling a reused pid apart. */
    static String owner(ProcessHandle p) {
        return p.pid() + "-" + p.info().startInstant().map(java.time.Instant::toEpochMilli).orElse(0L);
    }

    /**
     * Removes the temporary homes in {@code tmp} of processes that are gone: this uid's folders only (a name is not enough
     * in a shared /tmp), never through a link, never {@code keep}. Returns how many went.
     */
    static int sweep(Path tmp, Path keep) {
        int n = 0;
        try (var entries = Files.newDirectoryStream(tmp, PREFIX + "*")) {
            Object me = Files.getAttribute(keep, "unix:uid", java.nio.file.LinkOption.NOFOLLOW_LINKS);
            for (Path d : entries) {
                String[] f = d.getFileName().toString().substring(PREFIX.length()).split("-");
                if (d.equals(keep) || f.length != 3 || !f[0].matches("\\d{1,10}") || !f[1].matches("\\d{1,15}")) continue;
                if (!Files.isDirectory(d, java.nio.file.LinkOption.NOFOLLOW_LINKS)
                        || !me.equals(Files.getAttribute(d, "unix:uid", java.nio.file.LinkOption.NOFOLLOW_LINKS))) continue;
                String live = ProcessHandle.of(Long.parseLong(f[0])).map(UserHome::owner).orElse(null);
                if ((f[0] + "-" + f[1]).equals(live)) continue; // its process still runs
                try {
                    TreeDelete.delete(d);
                    n++;
                } catch (IOException | RuntimeException e) {
                    // another run sweeps it, or it stays: never a reason to fail this one
                }
            }
        } catch (IOException | RuntimeException e) {
            // an unreadable temporary folder: nothing swept
        }
        return n;
    }
}
