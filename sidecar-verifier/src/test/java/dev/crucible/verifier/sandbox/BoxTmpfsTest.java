package dev.crucible.verifier.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * rt34 tmpfs-fill-nolimit: every tmpfs a box has is sized, with no memory limit set (tmpfs is host RAM, so nothing else
 * bounds it). Before, bwrap's /dev (and /dev/shm in it) was an unsized tmpfs: one box took 6.5 GiB of the host's memory.
 */
class BoxTmpfsTest {
    @TempDir Path tmp;

    @Test
    void everyWritableTmpfsInTheBoxIsSized() throws Exception {
        assumeTrue(Box.availability().ok(), () -> "no box here: " + Box.availability().problem());
        Path ws = Files.createDirectories(tmp.resolve("attempt-0/workspace"));
        long cap = 4L << 20;
        BoxLimits l = new BoxLimits(0, BoxLimits.defaults().pids(), 0, 0, 0, cap); // no memory limit: as an environment without spec.resources
        try (Box box = Box.open(BoxSpec.of("tmpfs", l).withWritable(ws))) {
            // 16 MiB into each place a box can write outside its workspace; each must stop at the cap or be refused
            String script = "for d in /tmp /dev/shm /dev /run /var/tmp /; do n=0; while [ $n -lt 16 ]; do "
                    + "{ head -c 1048576 /dev/zero > $d/fill-$n; } 2>/dev/null || break; n=$((n+1)); done; echo \"$d $n\"; done; "
                    + "echo x > /dev/null && echo null-ok; head -c 4 /dev/urandom | wc -c";
            BoxTest.Run r = BoxTest.run(box, ws, script, 60);
            assertThat(r.out()).contains("null-ok").contains("4\n");
            for (String line : r.out().lines().filter(x -> x.startsWith("/")).toList()) {
                int mib = Integer.parseInt(line.substring(line.indexOf(' ') + 1).trim());
                assertThat(mib).as("MiB written to %s: %s", line, r.out()).isLessThanOrEqualTo((int) (cap >> 20));
            }
            assertThat(r.out()).contains("/dev/shm ");
        }
    }
}
