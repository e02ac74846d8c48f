package dev.crucible.trajectory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real full volume (a 256 KiB tmpfs): appends never throw, the status says incomplete and why, what was written reads back. */
class FullDiskTest {

    @Test
    void aFullDiskIsAProblemInTheStatusNotAnExceptionAndTheRunGoesOn(@TempDir Path tmp) throws Exception {
        Path mnt = tmp.resolve("small");
        Files.createDirectories(mnt);
        assumeTrue(run("mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", mnt.toString()) == 0,
                "mounting a small tmpfs needs root (CAP_SYS_ADMIN); the full-disk case is not tested here");
        try {
            Path dir = mnt.resolve("trajectory");
            TrajectoryStatus status;
            long stored = 0;
            try (TrajectoryRecorder r = TrajectoryRecorder.open(dir, RecorderLimits.defaults().withSegment(50, 16 << 10))) {
                for (int i = 0; i < 20_000; i++) {
                    if (r.append(EventKind.OUTPUT, null, null, Map.of("stream", "stdout", "text", "a line of the agent's output, number " + i)) > 0) stored++;
                }
                status = r.status();
            }
            assertThat(status.complete()).isFalse();
            assertThat(status.lost()).isPositive();
            assertThat(status.problems()).anySatisfy(p -> assertThat(p).contains("No space left on device"));
            List<TraceEvent> events = new ArrayList<>();
            List<String> problems = new ArrayList<>();
            TrajectoryReader.read(dir, events::add, problems::add);
            assertThat(events.size()).isGreaterThan(100).isLessThanOrEqualTo((int) stored + 1);
            for (int i = 1; i < events.size(); i++) assertThat(events.get(i).seq()).isGreaterThan(events.get(i - 1).seq());
        } finally {
            run("umount", mnt.toString());
        }
    }

    private static int run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        return p.waitFor(20, TimeUnit.SECONDS) ? p.exitValue() : -1;
    }
}
