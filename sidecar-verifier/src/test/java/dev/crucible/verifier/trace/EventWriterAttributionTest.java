package dev.crucible.verifier.trace;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.trajectory.EventKind;
import dev.crucible.trajectory.RecorderLimits;
import dev.crucible.trajectory.TraceEvent;
import dev.crucible.trajectory.TrajectoryReader;
import dev.crucible.trajectory.TrajectoryRecorder;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which process a file change is attributed to from the kernel's process events ({@link EventProcessTable}), on the
 * demo hacker's shape: the launcher (root) runs bwrap, whose init (never execs) forks the shell running hacker.sh,
 * which forks cat (its redirection opens conftest.py before cat is exec'd), then sed.
 */
class EventWriterAttributionTest {
    private static final Instant T0 = Instant.parse("2026-11-30T00:00:00Z");

    private static Instant ms(double m) { return T0.plusNanos((long) (m * 1_000_000)); }

    /** Root 100 (bwrap), its init 101, the shell 102 exec'd at 5 ms, cat 103 forked at 6 ms (exec 6.5, exit 7.5), sed 104 at 18-19 ms. */
    private static EventProcessTable hacker(TrajectoryRecorder rec, boolean watchFirst) {
        return hacker(new EventProcessTable(rec), watchFirst);
    }

    private static EventProcessTable hacker(EventProcessTable t, boolean watchFirst) {
        t.forked(100, 1, ms(0));
        t.execed(100, List.of("bwrap", "--", "sh", "hacker.sh"), "/w", ms(1));
        if (watchFirst) t.watch(100, List.of("sh", "hacker.sh"), ms(0));
        t.forked(101, 100, ms(2));
        t.forked(102, 101, ms(3));
        t.execed(102, List.of("sh", "hacker.sh"), "/w", ms(5));
        t.forked(103, 102, ms(6));
        t.execed(103, List.of("cat"), "/w", ms(6.5));
        t.exited(103, 0, ms(7.5));
        t.forked(104, 102, ms(18));
        t.execed(104, List.of("sed", "-i", "s/x/y/", "t.py"), "/w", ms(18.2));
        t.exited(104, 0, ms(19));
        if (!watchFirst) t.watch(100, List.of("sh", "hacker.sh"), ms(0));
        return t;
    }

    @Test
    void aWriteWhileCatRunsIsCats(@TempDir Path dir) throws Exception {
        TrajectoryRecorder rec = TrajectoryRecorder.open(dir, RecorderLimits.defaults());
        EventProcessTable t = hacker(rec, true);
        Long seq = t.attribute(ms(7));
        rec.close();
        assertThat(start(dir, seq).text("command")).isEqualTo("cat");
        assertThat(start(dir, seq).text("ppid")).isEqualTo("102");
    }

    @Test
    void aStampACoarseTickEarlyStillNamesCatNotTheShellOrSed(@TempDir Path dir) throws Exception {
        // stamped 5.5 ms: the shell alone was alive then, but cat (forked at 6) lies within the stamp's tick (10 ms here)
        TrajectoryRecorder rec = TrajectoryRecorder.open(dir, RecorderLimits.defaults());
        Long seq = hacker(rec, true).attribute(ms(5.5));
        rec.close();
        assertThat(start(dir, seq).text("command")).isEqualTo("cat");
    }

    @Test
    void theShellsOwnWriteWithNoChildNearIsTheShells(@TempDir Path dir) throws Exception {
        // stamped 30 ms (echo > file, a builtin): cat and sed ended before; bwrap's init and the launcher are its parents
        TrajectoryRecorder rec = TrajectoryRecorder.open(dir, RecorderLimits.defaults());
        Long seq = hacker(rec, true).attribute(ms(30));
        rec.close();
        assertThat(start(dir, seq).text("command")).isEqualTo("sh hacker.sh");
    }

    @Test
    void aFileStampedBeforeTheAgentStartedIsNoProcessOfIts(@TempDir Path dir) throws Exception {
        TrajectoryRecorder rec = TrajectoryRecorder.open(dir, RecorderLimits.defaults());
        assertThat(hacker(rec, true).attribute(ms(-60_000))).isNull(); // setup's copy kept the example's old mtime
        rec.close();
    }

    @Test
    void processesStartedBeforeTheRootWasNamedAreTheAgentsAndOnlyThose(@TempDir Path dir) throws Exception {
        TrajectoryRecorder rec = TrajectoryRecorder.open(dir, RecorderLimits.defaults());
        EventProcessTable t = new EventProcessTable(rec);
        t.forked(50, 1, ms(0)); // another child of the JVM (grading, a sibling attempt): never recorded
        t.execed(50, List.of("python3", "-m", "pytest"), "/g", ms(0.5));
        hacker(t, false); // the root named after its tree ran (the JVM's start returned late)
        t.forked(60, 50, ms(10));
        Long seq = t.attribute(ms(7));
        rec.close();
        List<TraceEvent> all = read(dir);
        assertThat(all).filteredOn(e -> EventKind.PROCESS_START.equals(e.kind())).extracting(e -> e.text("command"))
                .contains("sh hacker.sh", "cat").doesNotContain("python3 -m pytest");
        assertThat(start(dir, seq).text("command")).isEqualTo("cat");
        assertThat(all).filteredOn(e -> EventKind.PROCESS_END.equals(e.kind()) && "103".equals(e.text("pid")))
                .singleElement().satisfies(e -> assertThat(e.text("exitStatus")).isEqualTo("0"));
    }

    @Test
    void aLongRunningServerIsNotBlamedForAFreshWrite(@TempDir Path dir) throws Exception {
        TrajectoryRecorder rec = TrajectoryRecorder.open(dir, RecorderLimits.defaults());
        EventProcessTable t = new EventProcessTable(rec);
        t.forked(100, 1, ms(0));
        t.watch(100, List.of("sh", "agent.sh"), ms(0));
        t.forked(101, 100, ms(1));
        t.execed(101, List.of("python3", "-m", "http.server"), "/w", ms(1.5));
        t.forked(102, 100, ms(500));
        t.execed(102, List.of("tee", "conftest.py"), "/w", ms(500.5));
        t.exited(102, 9, ms(502)); // killed by SIGKILL
        Long seq = t.attribute(ms(501));
        rec.close();
        assertThat(start(dir, seq).text("command")).isEqualTo("tee conftest.py");
        assertThat(read(dir)).filteredOn(e -> EventKind.PROCESS_END.equals(e.kind())).singleElement()
                .satisfies(e -> assertThat(e.text("exitStatus")).isEqualTo("137"));
    }

    private static TraceEvent start(Path dir, Long seq) throws Exception {
        assertThat(seq).as("an attributed process").isNotNull();
        return read(dir).stream().filter(e -> e.seq() == seq).findFirst().orElseThrow();
    }

    private static List<TraceEvent> read(Path dir) throws Exception {
        List<TraceEvent> all = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        TrajectoryReader.read(dir, all::add, problems::add);
        assertThat(problems).isEmpty();
        return all;
    }
}
