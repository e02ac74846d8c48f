package dev.crucible.cli.trace;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.cli.Main;
import dev.crucible.trajectory.EventKind;
import dev.crucible.trajectory.RecorderLimits;
import dev.crucible.trajectory.TrajectoryRecorder;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code crucible trace --steps}: a range of timeline numbers over a trajectory the real recorder wrote, and its bad input. */
class TraceStepsTest {
    @TempDir
    Path dir;

    @Test
    void aRangeShowsOnlyItsEventsAndBadRangesAreRefusedNamingTheOption() throws Exception {
        try (TrajectoryRecorder rec = TrajectoryRecorder.open(dir.resolve("trajectory"), RecorderLimits.defaults())) {
            for (int i = 1; i <= 5; i++) rec.append(EventKind.OUTPUT, null, null, Map.of("stream", "stdout", "text", "line-" + i + "-end"));
        }
        String all = trace(0, "trace", dir.toString());
        assertThat(all).contains("line-1-end", "line-5-end");
        assertThat(trace(0, "trace", dir.toString(), "--steps", "2..3")).contains("line-2-end", "line-3-end")
                .doesNotContain("line-1-end", "line-4-end", "line-5-end");
        assertThat(trace(0, "trace", dir.toString(), "--steps", "4")).contains("line-4-end").doesNotContain("line-3-end", "line-5-end");
        assertThat(trace(0, "trace", dir.toString(), "--steps", "..1")).contains("line-1-end").doesNotContain("line-2-end");
        assertThat(trace(0, "trace", dir.toString(), "--steps", "5..")).contains("line-5-end").doesNotContain("line-4-end");
        assertThat(trace(Main.EXIT_INVALID, "trace", dir.toString(), "--steps", "two")).contains("--steps: expected A..B");
        assertThat(trace(Main.EXIT_INVALID, "trace", dir.toString(), "--steps", "99999999999999999999")).contains("--steps: a number past");
        assertThat(trace(Main.EXIT_INVALID, "trace", dir.toString(), "--steps", "4..2")).contains("--steps: 4 is after 2");
    }

    /** Host round 9: a trajectory folder whose segments/ is a link to a folder printed the reader's IOException as a stack trace. */
    @Test
    void segmentsThatAreALinkAreRefusedInOneLine() throws Exception {
        java.nio.file.Files.createDirectories(dir.resolve("elsewhere"));
        java.nio.file.Files.createDirectories(dir.resolve("run/trajectory"));
        java.nio.file.Files.createSymbolicLink(dir.resolve("run/trajectory/segments"), dir.resolve("elsewhere"));
        assertThat(trace(Main.EXIT_INVALID, "trace", dir.resolve("run").toString())).contains("holds no trajectory").contains("a link is not followed")
                .doesNotContain("Exception");
    }

    private static String trace(int exit, String... args) {
        StringWriter w = new StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setOut(new PrintWriter(w, true));
        cl.setErr(new PrintWriter(w, true));
        assertThat(cl.execute(args)).as(w.toString()).isEqualTo(exit);
        return w.toString();
    }
}
