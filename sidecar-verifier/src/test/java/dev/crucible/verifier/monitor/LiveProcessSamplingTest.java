package dev.crucible.verifier.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.crucible.verifier.config.HackPolicy;
import dev.crucible.verifier.config.VerifierSpec;
import dev.crucible.verifier.pristine.PristineSnapshot;
import dev.crucible.verifier.pristine.ProtectedPaths;
import dev.crucible.verifier.support.Fixtures;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sampler of this JVM's own agent processes (the local runtime, a batch pod): a process first seen
 * under one command line and later exec'ing another (a script's child between fork and exec, a script
 * that execs) has the new one checked too. Real processes, the monitor's real timer.
 */
class LiveProcessSamplingTest {
    @TempDir Path dir;
    private final List<Finding> got = new CopyOnWriteArrayList<>();

    @Test
    void aCommandLineThatChangesByExecIsCheckedAgain() throws Exception {
        Path ws = dir.resolve("ws");
        Fixtures.write(ws.resolve("later.sh"), "sleep 1\nexec sh -c 'sleep 8; true # /proc/self/mountinfo'\n");
        VerifierSpec pytest = new VerifierSpec("test-suite", "python3 -m pytest -q", null, null, null, null, null, null, null,
                null, null, null, null, null, null, null);
        PristineSnapshot p = PristineSnapshot.take(ws, ProtectedPaths.of(pytest, true), dir.resolve("pristine"));
        MonitorConfig cfg = new MonitorConfig(ws, null, p, HackPolicy.DEFAULT, List.of(dir.resolve("hidden")), List.of(), List.of(),
                List.of(), Set.of(), Duration.ofHours(1), Duration.ofMillis(100), "python3");
        Process agent = new ProcessBuilder("sh", "later.sh").directory(ws.toFile()).start();
        try (HackMonitor m = new HackMonitor(cfg, got::add)) {
            m.watchProcess(agent.pid());
            m.start();
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(got)
                    .anySatisfy(f -> assertThat(f.evidence()).contains("mountinfo", "pid " + agent.pid())));
        } finally {
            agent.destroyForcibly();
            agent.waitFor(5, TimeUnit.SECONDS);
        }
    }
}
