package dev.crucible.verifier.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.crucible.trajectory.BlobStore;
import dev.crucible.trajectory.EventKind;
import dev.crucible.trajectory.RecorderLimits;
import dev.crucible.trajectory.TraceEvent;
import dev.crucible.trajectory.TrajectoryReader;
import dev.crucible.trajectory.TrajectoryRecorder;
import dev.crucible.verifier.config.HackPolicy;
import dev.crucible.verifier.config.VerifierSpec;
import dev.crucible.verifier.monitor.HackMonitor;
import dev.crucible.verifier.monitor.MonitorConfig;
import dev.crucible.verifier.pristine.PristineSnapshot;
import dev.crucible.verifier.pristine.ProtectedPaths;
import dev.crucible.verifier.support.Fixtures;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The live monitor's view recorded as a trajectory, with a real agent process and the monitor's real timer: the agent's
 * processes, each workspace change (a diff against the content recorded before, content in a blob), a link out of the
 * workspace described without being followed, a FIFO never opened, and a finding attached to the change that caused it.
 */
class MonitorTrajectoryTest {
    @TempDir Path dir;

    @Test
    void processesChangesAndFindingsLandOnOneTimeline() throws Exception {
        Path ws = dir.resolve("ws");
        Fixtures.write(ws.resolve("calc.py"), "x = 1\n");
        Fixtures.write(ws.resolve("agent.sh"), "printf 'x = 2\\n' > calc.py\nwhile [ ! -e go ]; do sleep 0.1; done\n"
                + "printf 'x = 3\\n' > calc.py\nmkfifo pipe\nln -s /etc/passwd out\nprintf 'import pytest\\n' > conftest.py\nsleep 1\n");
        VerifierSpec pytest = new VerifierSpec("test-suite", "python3 -m pytest -q", null, null, null, null, null, null, null,
                null, null, null, null, null, null, null);
        PristineSnapshot p = PristineSnapshot.take(ws, ProtectedPaths.of(pytest, true), dir.resolve("pristine"));
        MonitorConfig cfg = new MonitorConfig(ws, null, p, HackPolicy.DEFAULT, List.of(dir.resolve("hidden")), List.of(), List.of(),
                List.of(), Set.of(), Duration.ofMillis(100), Duration.ofMillis(50), "python3");
        Path traj = dir.resolve("trajectory");
        TrajectoryRecorder rec = TrajectoryRecorder.open(traj, RecorderLimits.defaults());
        RolloutTrace trace = new RolloutTrace(rec, true);
        Process agent;
        try (HackMonitor m = new HackMonitor(cfg, f -> { })) {
            m.start();
            m.observe(trace);
            agent = new ProcessBuilder("sh", "agent.sh").directory(ws.toFile()).start();
            m.watchProcess(agent.pid());
            await().atMost(Duration.ofSeconds(30)).until(() -> events(rec, traj).stream().anyMatch(e -> "calc.py".equals(e.text("path"))));
            Files.writeString(ws.resolve("go"), "");
            assertThat(agent.waitFor(30, TimeUnit.SECONDS)).isTrue();
            trace.rootExited(agent.pid(), agent.exitValue());
            m.scanNow();
        }
        rec.close();
        List<TraceEvent> all = events(traj);
        TraceEvent root = all.stream().filter(e -> EventKind.PROCESS_START.equals(e.kind()) && Boolean.TRUE.equals(e.data().get("root")))
                .findFirst().orElseThrow();
        assertThat(root.text("command")).isEqualTo("sh agent.sh");
        assertThat(all).anySatisfy(e -> {
            assertThat(e.kind()).isEqualTo(EventKind.PROCESS_END);
            assertThat(e.cause()).isEqualTo(root.seq());
            assertThat(e.data()).containsEntry("exitStatus", 0);
        });
        List<TraceEvent> calc = all.stream().filter(e -> EventKind.FILE.equals(e.kind()) && "calc.py".equals(e.text("path"))).toList();
        assertThat(calc).hasSizeGreaterThanOrEqualTo(2);
        assertThat(calc.get(0).text("diffNote")).contains("first change since reset");
        TraceEvent last = calc.get(calc.size() - 1);
        assertThat(last.text("diff")).contains("-x = 2", "+x = 3");
        assertThat(new String(new BlobStore(traj).read(last.text("content"), 100), StandardCharsets.UTF_8)).isEqualTo("x = 3\n");
        assertThat(last.cause()).as("attributed to an agent process").isNotNull();
        assertThat(all.stream().filter(e -> e.seq() == last.cause()).findFirst().orElseThrow().kind()).isEqualTo(EventKind.PROCESS_START);
        assertThat(all).noneMatch(e -> "pipe".equals(e.text("path"))); // the scan lists files and links only: a FIFO is never opened
        TraceEvent link = file(all, "out");
        assertThat(link.text("type")).isEqualTo("link");
        assertThat(link.data()).doesNotContainKeys("content", "sha256"); // never followed out of the workspace
        TraceEvent conftest = file(all, "conftest.py");
        assertThat(all).anySatisfy(e -> {
            assertThat(e.kind()).isEqualTo(EventKind.FINDING);
            assertThat(e.text("path")).isEqualTo("conftest.py");
            assertThat(e.cause()).isEqualTo(conftest.seq());
        });
    }

    private static TraceEvent file(List<TraceEvent> all, String path) {
        return all.stream().filter(e -> EventKind.FILE.equals(e.kind()) && path.equals(e.text("path"))).findFirst()
                .orElseThrow(() -> new AssertionError("no file event for " + path + " in " + all));
    }

    private static List<TraceEvent> events(TrajectoryRecorder rec, Path traj) throws Exception {
        rec.flush();
        return events(traj);
    }

    private static List<TraceEvent> events(Path traj) throws Exception {
        List<TraceEvent> out = new ArrayList<>();
        TrajectoryReader.read(traj, out::add, p -> { });
        return out;
    }
}
