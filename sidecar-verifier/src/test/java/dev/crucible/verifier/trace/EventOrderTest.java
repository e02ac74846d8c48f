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
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kernel's events reach the table late and interleaved across processes, and the caller names the root whenever its
 * own wait for them ends (a sync may time out on a loaded host). Whatever the order, the trajectory holds one start for
 * the root, with the command the caller launched, and every child's parent before the child.
 */
class EventOrderTest {
    static final long ROOT = 4_194_400L; // above any pid_max: /proc never knows it, as with a root not yet visible there
    static final long JVM = 9010, C1 = ROOT + 1, C2 = ROOT + 2;

    @Test
    void anyInterleavingGivesOneRootStartAndParentsFirst(@TempDir Path dir) throws Exception {
        Instant t0 = Instant.parse("2026-12-01T11:08:19.832Z");
        Random rnd = new Random(42);
        for (int round = 0; round < 400; round++) {
            // each process's own events in order (the kernel queues them so); processes interleave at random
            List<List<Consumer<EventProcessTable>>> perProc = List.of(
                    new ArrayList<>(List.of(
                            t -> t.forked(ROOT, JVM, t0),
                            t -> t.execed(ROOT, List.of("jspawnhelper"), null, t0.plusMillis(1)),
                            t -> t.execed(ROOT, List.of("/bin/sh", "-c", "x"), "/ws", t0.plusMillis(2)))),
                    new ArrayList<>(List.of(
                            t -> t.forked(C1, ROOT, t0.plusMillis(3)),
                            t -> t.execed(C1, List.of("/bin/true"), "/ws", t0.plusMillis(4)),
                            t -> t.exited(C1, 0, t0.plusMillis(5)))),
                    new ArrayList<>(List.of(
                            t -> t.forked(C2, ROOT, t0.plusMillis(6)),
                            t -> t.exited(C2, 5 << 8, t0.plusMillis(7)))));
            List<Consumer<EventProcessTable>> order = new ArrayList<>();
            int[] next = new int[perProc.size()];
            int left = perProc.stream().mapToInt(List::size).sum();
            while (left-- > 0) {
                int p;
                do p = rnd.nextInt(perProc.size()); while (next[p] >= perProc.get(p).size());
                order.add(perProc.get(p).get(next[p]++));
            }
            int watchAt = rnd.nextInt(order.size() + 1);
            Path d = dir.resolve("r" + round);
            TrajectoryRecorder rec = TrajectoryRecorder.open(d, RecorderLimits.defaults());
            EventProcessTable table = new EventProcessTable(rec);
            for (int i = 0; i <= order.size(); i++) {
                if (i == watchAt) table.watch(ROOT, List.of("/bin/sh", "-c", "x"), t0.plusMillis(10));
                if (i < order.size()) order.get(i).accept(table);
            }
            table.rootExited(ROOT, 0);
            rec.close();
            List<TraceEvent> starts = new ArrayList<>();
            TrajectoryReader.read(d, e -> { if (EventKind.PROCESS_START.equals(e.kind())) starts.add(e); },
                    prob -> { throw new AssertionError(prob); });
            String desc = "round " + round + ", watch at " + watchAt + ": " + starts;
            assertThat(starts).as(desc).filteredOn(e -> "true".equals(e.text("root"))).singleElement()
                    .satisfies(e -> assertThat(e.text("command")).as(desc).doesNotStartWith("["));
            for (int i = 0; i < starts.size(); i++) {
                TraceEvent e = starts.get(i);
                if (!Long.toString(ROOT).equals(e.text("ppid"))) continue;
                assertThat(starts.subList(0, i)).as(desc).anyMatch(s -> Long.toString(ROOT).equals(s.text("pid")));
            }
        }
    }

    @Test
    void aRootThatEndedBeforeItWasNamedIsRecordedOnceWithItsCommand(@TempDir Path dir) throws Exception {
        // a shell of a few quick commands, on a loaded host: all of it, its own exit included, reached the table before
        // the caller's wait for its fork ended and it named the root (the CI failure of 26396c0c)
        Instant t0 = Instant.parse("2026-12-01T11:08:19.832Z");
        TrajectoryRecorder rec = TrajectoryRecorder.open(dir.resolve("t"), RecorderLimits.defaults());
        EventProcessTable table = new EventProcessTable(rec);
        table.forked(ROOT, JVM, t0);
        table.execed(ROOT, List.of("/bin/sh", "-c", "x"), "/ws", t0.plusMillis(1));
        table.forked(C1, ROOT, t0.plusMillis(2));
        table.execed(C1, List.of("/bin/true"), "/ws", t0.plusMillis(3));
        table.exited(C1, 0, t0.plusMillis(4));
        table.exited(ROOT, 0, t0.plusMillis(5));
        table.watch(ROOT, List.of("/bin/sh", "-c", "…"), t0.plusMillis(11));
        table.rootExited(ROOT, 0);
        rec.close();
        List<TraceEvent> all = new ArrayList<>();
        TrajectoryReader.read(dir.resolve("t"), all::add, prob -> { throw new AssertionError(prob); });
        List<TraceEvent> starts = all.stream().filter(e -> EventKind.PROCESS_START.equals(e.kind())).toList();
        assertThat(starts).as("%s", starts).filteredOn(e -> "true".equals(e.text("root"))).singleElement()
                .satisfies(e -> assertThat(e.text("command")).isEqualTo("/bin/sh -c x"))
                .satisfies(e -> assertThat(e.text("ppid")).isEqualTo(Long.toString(JVM)));
        assertThat(starts).extracting(e -> e.text("pid")).containsExactly(Long.toString(ROOT), Long.toString(C1));
        assertThat(all).filteredOn(e -> EventKind.PROCESS_END.equals(e.kind())).extracting(TraceEvent::cause)
                .containsExactlyInAnyOrder(starts.get(0).seq(), starts.get(1).seq());
    }
}
