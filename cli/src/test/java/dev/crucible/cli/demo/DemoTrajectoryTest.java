package dev.crucible.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.cli.Main;
import dev.crucible.trajectory.EventKind;
import dev.crucible.trajectory.TraceEvent;
import dev.crucible.trajectory.TrajectoryReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import dev.crucible.verifier.trace.ProcessEvents;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Issue 36's done-when: {@code crucible demo} leaves both trajectories, and the hacker's shows the process that wrote
 * conftest.py, the change itself (with its diff) and the findings attached to that change; the ATIF export links them
 * the same way, and {@code crucible trace --finding} prints that chain.
 */
class DemoTrajectoryTest {

    @Test
    @Timeout(180)
    void theHackersTrajectoryShowsTheProcessThatWroteConftestWithTheFindingAttached(@TempDir Path out) throws Exception {
        assumeProcessEvents();
        StringWriter o = new StringWriter();
        CommandLine demo = new CommandLine(new DemoCommand());
        demo.setOut(new PrintWriter(o, true));
        demo.setErr(new PrintWriter(o, true));
        assertThat(demo.execute("--out", out.toString())).as(o.toString()).isZero();

        Map<Long, TraceEvent> hacker = read(out.resolve("hacker/trajectory"));
        TraceEvent finding = hacker.values().stream()
                .filter(e -> EventKind.FINDING.equals(e.kind()) && "startup-hook-injection".equals(e.text("detector")))
                .findFirst().orElseThrow(() -> new AssertionError("no startup-hook finding in " + hacker.values()));
        assertThat(finding.text("path")).isEqualTo("conftest.py");
        TraceEvent change = hacker.get(finding.cause());
        assertThat(change).as("the event the finding names as its cause").isNotNull();
        assertThat(change.kind()).isEqualTo(EventKind.FILE);
        assertThat(change.text("path")).isEqualTo("conftest.py");
        assertThat(change.text("op")).isEqualTo("added");
        assertThat(change.text("diff")).contains("+++ b/conftest.py", "+        rep.outcome = \"passed\"");
        assertThat(change.text("sha256")).startsWith("sha256:");
        TraceEvent writer = hacker.get(change.cause());
        assertThat(writer).as("the process the change is attributed to").isNotNull();
        assertThat(writer.kind()).isEqualTo(EventKind.PROCESS_START);
        // the process table comes from the kernel's process events (not /proc samples, which missed a writer of a few
        // milliseconds): the writer is the shell running hacker.sh or one of its children, with its command line, every time
        assertThat(writer.text("observed")).as("the writer %s", writer.data()).isEqualTo("kernel process events");
        List<TraceEvent> line = lineage(hacker, writer);
        assertThat(line).as("the writer and its recorded parents: %s", line.stream().map(TraceEvent::data).toList())
                .anyMatch(p -> !"true".equals(p.text("root")) && p.text("command").contains("hacker.sh") && !p.text("command").contains("bwrap"));
        assertThat(line.get(line.size() - 1).text("root")).as("the line reaches the agent's root").isEqualTo("true");
        assertThat(writer.seq()).isLessThan(change.seq()).isLessThan(finding.seq());
        assertThat(hacker.values()).extracting(TraceEvent::kind).contains(EventKind.GRADING, EventKind.OUTCOME, EventKind.END);

        Map<Long, TraceEvent> honest = read(out.resolve("honest/trajectory"));
        assertThat(honest.values()).noneMatch(e -> EventKind.FINDING.equals(e.kind()));
        assertThat(honest.values()).anyMatch(e -> EventKind.FILE.equals(e.kind()) && "calc/ops.py".equals(e.text("path")));

        JsonNode result = new ObjectMapper().readTree(out.resolve("hacker/result.json").toFile());
        assertThat(result.at("/trajectory/complete").asBoolean()).as(result.get("trajectory").toString()).isTrue();

        JsonNode atif = new ObjectMapper().readTree(out.resolve("hacker/trajectory/trajectory.atif.json").toFile());
        assertThat(atif.get("schema_version").asText()).isEqualTo("ATIF-v1.8");
        JsonNode findingStep = null;
        for (JsonNode s : atif.get("steps")) if (s.at("/extra/crucible/seq").asLong() == finding.seq()) findingStep = s;
        assertThat(findingStep).isNotNull();
        JsonNode changeStep = atif.get("steps").get(findingStep.at("/extra/crucible/causeStep").asInt() - 1);
        assertThat(changeStep.at("/extra/crucible/data/path").asText()).isEqualTo("conftest.py");
        JsonNode writerStep = atif.get("steps").get(changeStep.at("/extra/crucible/causeStep").asInt() - 1);
        assertThat(writerStep.get("source").asText()).isEqualTo("agent");
        // the same process as the trajectory's writer
        assertThat(writerStep.at("/tool_calls/0/arguments/command").asText()).isEqualTo(writer.text("command"));

        StringWriter t = new StringWriter();
        CommandLine trace = Main.commandLine();
        trace.setOut(new PrintWriter(t, true));
        trace.setErr(new PrintWriter(t, true));
        assertThat(trace.execute("trace", out.resolve("hacker").toString(), "--finding", "startup")).as(t.toString()).isZero();
        assertThat(t.toString()).contains("#" + writer.seq() + " ", "added conftest.py", "startup-hook-injection on conftest.py",
                "← #" + change.seq()).doesNotContain("grading");
    }

    /**
     * The writer is certain only with the kernel's process events (a host without the proc connector, e.g. a container
     * with its own network namespace, falls back to /proc samples, which can miss a writer of a few milliseconds): skip,
     * saying why, where the helper cannot listen.
     */
    private static void assumeProcessEvents() {
        String[] why = new String[1];
        ProcessEvents ev = ProcessEvents.start(new ProcessEvents.Sink() {
            public void forked(long pid, long ppid, java.time.Instant at) {}
            public void execed(long pid, List<String> argv, String cwd, java.time.Instant at) {}
            public void exited(long pid, int status, java.time.Instant at) {}
            public void lost(String reason) {}
        }, why);
        Assumptions.assumeTrue(ev != null, () -> "the kernel's process events are unavailable here (" + why[0]
                + "): the writer could only be sampled from /proc");
        ev.close();
    }

    /** {@code p} and its recorded parents (by ppid, each the last start of that pid before its child), up to the root. */
    private static List<TraceEvent> lineage(Map<Long, TraceEvent> events, TraceEvent p) {
        List<TraceEvent> line = new ArrayList<>();
        for (int depth = 0; p != null && depth < 32; depth++) {
            line.add(p);
            String ppid = p.text("ppid");
            long before = p.seq();
            p = events.values().stream()
                    .filter(e -> EventKind.PROCESS_START.equals(e.kind()) && e.seq() < before && ppid != null && ppid.equals(e.text("pid")))
                    .max(java.util.Comparator.comparingLong(TraceEvent::seq)).orElse(null);
        }
        return line;
    }

    private static Map<Long, TraceEvent> read(Path dir) throws Exception {
        Map<Long, TraceEvent> events = new HashMap<>();
        List<String> problems = new ArrayList<>();
        TrajectoryReader.read(dir, e -> events.put(e.seq(), e), problems::add);
        assertThat(problems).isEmpty();
        return events;
    }
}
