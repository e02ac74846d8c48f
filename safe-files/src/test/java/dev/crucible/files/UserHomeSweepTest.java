package dev.crucible.files;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Host round 6, P4: a run as a uid with no usable home made a temporary home, removed when the process ends; a SIGKILLed
 * run left its folder (25 MB) for good. The next such run removes the folders of processes that are gone, and nothing
 * else: not a running process's, not a link, not another name.
 */
class UserHomeSweepTest {
    @TempDir
    Path tmp;

    @Test
    void theHomesOfProcessesThatAreGoneAreRemovedAndNothingElse() throws Exception {
        Process p = new ProcessBuilder("true").start();
        String dead = UserHome.owner(p.toHandle());
        p.waitFor();
        Path gone = Files.createDirectories(tmp.resolve("crucible-home-" + dead + "-123/envs/x"));
        Files.writeString(gone.resolve("cache.bin"), "25 MB of caches");
        Path running = Files.createDirectories(tmp.resolve("crucible-home-" + UserHome.owner(ProcessHandle.current()) + "-456"));
        Path reused = Files.createDirectories(tmp.resolve("crucible-home-" + ProcessHandle.current().pid() + "-1-789")); // same pid, another start
        Path other = Files.createDirectories(tmp.resolve("crucible-home-notours"));
        Path target = Files.createDirectories(tmp.resolve("elsewhere"));
        Files.writeString(target.resolve("keep.txt"), "not a home");
        Path link = Files.createSymbolicLink(tmp.resolve("crucible-home-" + dead + "-999"), target);
        Path keep = Files.createDirectories(tmp.resolve("crucible-home-" + dead + "-1000"));

        int swept = UserHome.sweep(tmp, keep);

        assertThat(tmp.resolve("crucible-home-" + dead + "-123")).as("a SIGKILLed run's home").doesNotExist();
        assertThat(reused).as("a pid that now names another process").doesNotExist();
        assertThat(swept).isEqualTo(2);
        assertThat(running).as("this process's").exists();
        assertThat(other).as("not a name the CLI makes").exists();
        assertThat(keep).as("the one being made").exists();
        assertThat(Files.isSymbolicLink(link)).as("a link is never followed nor removed").isTrue();
        assertThat(target.resolve("keep.txt")).hasContent("not a home");
    }
}
