package dev.crucible.verifier.trace;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.trajectory.EventKind;
import dev.crucible.trajectory.RecorderLimits;
import dev.crucible.trajectory.TraceEvent;
import dev.crucible.trajectory.TrajectoryReader;
import dev.crucible.trajectory.TrajectoryRecorder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real proc connector through the host-side helper: a tree of processes of a few milliseconds each, started by
 * this JVM, comes back whole (every program with its parent and exit status), and a file its shell wrote is
 * attributed to that shell's line. Where the host cannot listen (another network namespace, an old kernel without
 * CAP_NET_ADMIN) the helper must say why, and the test is skipped with that reason.
 */
class ProcessEventsTest {

    @Test
    @Timeout(60)
    void aTreeOfQuickProcessesComesBackWholeWithParentsAndExitStatus(@TempDir Path dir) throws Exception {
        TrajectoryRecorder rec = TrajectoryRecorder.open(dir.resolve("t"), RecorderLimits.defaults());
        EventProcessTable table = new EventProcessTable(rec);
        String[] why = new String[1];
        ProcessEvents ev = ProcessEvents.start(table, why);
        Assumptions.assumeTrue(ev != null, () -> "process events unavailable here: " + why[0]);
        Path ws = Files.createDirectory(dir.resolve("ws"));
        try (ev) {
            // one shell; each of its commands lives a few milliseconds; the last one writes a file by its own redirection
            Process p = new ProcessBuilder("/bin/sh", "-c", "/bin/true; sh -c 'exit 3'; (/bin/true; exit 5); /bin/sed -n 1p /dev/null; "
                    + "/bin/cat /dev/null > made.txt; echo quick > by-shell.txt; exit 0").directory(ws.toFile()).start();
            long root = p.pid();
            ev.sync(5000); // as the caller does: its fork and exec in before the root is named
            table.watch(root, List.of("/bin/sh", "-c", "…"), Instant.now());
            assertThat(p.waitFor()).isZero();
            assertThat(ev.sync(5000)).as("every event up to now reported").isTrue();
            Long writer = table.attribute(Files.getLastModifiedTime(ws.resolve("made.txt")).toInstant());
            table.rootExited(root, 0);
            rec.close();
            assertThat(table.broken()).isNull();

            List<TraceEvent> all = new ArrayList<>();
            TrajectoryReader.read(dir.resolve("t"), all::add, prob -> { throw new AssertionError(prob); });
            List<TraceEvent> starts = all.stream().filter(e -> EventKind.PROCESS_START.equals(e.kind())).toList();
            Map<String, TraceEvent> byPid = starts.stream().collect(Collectors.toMap(e -> e.text("pid"), e -> e, (a, b) -> b));
            String rootPid = Long.toString(root);
            // every child of the shell, however short, is there with the shell as its parent (a command line read too late
            // is "[name]" or unknown, never missing)
            List<TraceEvent> kids = starts.stream().filter(e -> rootPid.equals(e.text("ppid"))).toList();
            assertThat(kids).as("children of the shell: %s", starts).hasSizeGreaterThanOrEqualTo(5);
            assertThat(starts).anyMatch(e -> e.text("command").contains("true") && rootPid.equals(e.text("ppid")));
            assertThat(all).filteredOn(e -> EventKind.PROCESS_END.equals(e.kind())).extracting(e -> e.text("exitStatus"))
                    .contains("3", "5", "0");
            assertThat(starts).filteredOn(e -> "true".equals(e.text("root"))).singleElement()
                    .satisfies(e -> assertThat(e.text("command")).startsWith("/bin/sh -c"));
            assertThat(starts).anyMatch(e -> e.text("forkOf") != null && rootPid.equals(e.text("ppid"))); // the ( ... ) subshell
            // made.txt: a process of the shell's tree (cat's redirection, cat, or one of the quick commands whose life
            // shares the stamp's tick), whose parents up to the shell were all recorded before it
            TraceEvent w = all.stream().filter(e -> e.seq() == writer).findFirst().orElseThrow();
            TraceEvent p2 = w;
            for (int depth = 0; p2 != null && !rootPid.equals(p2.text("pid")) && depth < 8; depth++) {
                TraceEvent child = p2;
                p2 = starts.stream().filter(e -> e.seq() < child.seq() && e.text("pid").equals(child.text("ppid")))
                        .reduce((a, b) -> b).orElse(null);
            }
            assertThat(p2).as("the shell, up the writer's recorded parents from %s", w.data()).isNotNull();
            assertThat(byPid).containsKey(rootPid);
            assertThat(starts).allMatch(e -> "kernel process events".equals(e.text("observed")));
        }
    }
}
