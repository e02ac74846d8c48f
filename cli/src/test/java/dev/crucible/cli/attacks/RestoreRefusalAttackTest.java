package dev.crucible.cli.attacks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 34 point 4 as a user starts it: {@code crucible restore} of a rollout snapshot, the real CLI as its own process,
 * as root and as the throwaway uid (setpriv), is refused before anything is restored (exit 2), naming why and
 * workspace-only snapshots. {@code cli/.../snapshot/RestoreRefusalTest} checks the same in this JVM; this is the
 * attack suite's two users.
 */
@Tag("attacks")
@Timeout(300)
class RestoreRefusalAttackTest {
    @Test
    void asRoot() throws Exception {
        CliProcess.assumeRoot();
        refused(null);
    }

    @Test
    void asUnprivilegedUser() throws Exception {
        CliProcess.assumeRoot(); // to become the throwaway uid
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")),
                "no unprivileged run: setpriv is missing");
        refused(CliProcess.THROWAWAY_UID);
    }

    private static void refused(Integer uid) throws Exception {
        Path home = Files.createTempDirectory(Path.of("/var/tmp"), "crucible-attack-restore-");
        try {
            Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwx------"));
            if (uid != null) CliProcess.chown(home, uid);
            Path store = home.resolve("store");
            Path out = home.resolve("branch");
            CliProcess.Result r = CliProcess.run(uid, home, List.of("restore", "snap-1", "--out", out.toString(), "--store", store.toString()),
                    null, 120);
            String who = uid == null ? "root" : "uid " + uid;
            assertThat(r.exit()).as("exit (" + who + "): " + r.output()).isEqualTo(2);
            assertThat(r.output()).as(who).contains("refused before anything was restored").contains("outside its box")
                    .contains("sealing key").contains("workspace-only");
            assertThat(out).as("nothing made for the branch (" + who + ")").doesNotExist();
            assertThat(store).as("the store was not touched (" + who + ")").doesNotExist();
        } finally {
            HostileKinds.run("rm", "-rf", "--one-file-system", home.toString());
        }
    }
}
