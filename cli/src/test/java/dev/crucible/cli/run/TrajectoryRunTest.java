package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.crucible.cli.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * crucible run's trajectory (issue 36) with bad input: a malformed handed-in trajectory in the run folder is refused with
 * the field named, the rollout goes on to its result, and result.json says the trajectory is incomplete and why.
 */
@Timeout(180)
class TrajectoryRunTest {

    @Test
    void aMalformedHandedInTrajectoryMakesItIncompleteAndTheRunGoesOn(@TempDir Path dir) throws Exception {
        LocalRuns.withoutSetup(LocalRuns.copyExample(dir.resolve("env"),
                LocalRuns.rollout("traced", "embedded", "echo hello from the agent; printf 'note' > notes.txt", 120)));
        Path out = dir.resolve("out");
        Files.createDirectories(out);
        Files.writeString(out.resolve("agent-trajectory.json"), "{\"schema_version\":\"ATIF-v1.8\",\"agent\":{\"name\":\"f\",\"version\":\"1\"},"
                + "\"steps\":[{\"step_id\":1,\"source\":\"robot\",\"message\":\"x\"}]}");
        LocalRuns.Run r = LocalRuns.run("-f", dir.resolve("env").toString(), "--out", out.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        JsonNode res = LocalRuns.json(out.resolve("result.json"));
        assertThat(res.path("reason").asText()).isEqualTo("Verified"); // graded as usual
        assertThat(res.at("/trajectory/complete").asBoolean()).isFalse();
        assertThat(res.at("/trajectory/problems/0").asText()).contains("agent-trajectory.json: steps[0].source: required, one of system, user, agent");
        // the stored ATIF document is counted beside the segments (host round 7: uncounted, 2.2x the accounted bytes)
        Path doc = Path.of(res.at("/trajectory/dir").asText()).resolve(dev.crucible.trajectory.AtifExport.FILE);
        assertThat(res.at("/trajectory/exportBytes").asLong()).isEqualTo(Files.size(doc)).isPositive();

        StringWriter t = new StringWriter();
        CommandLine trace = Main.commandLine();
        trace.setOut(new PrintWriter(t, true));
        trace.setErr(new PrintWriter(t, true));
        assertThat(trace.execute("trace", out.toString())).as(t.toString()).isZero();
        assertThat(t.toString()).contains("stdout+stderr: hello from the agent", "added notes.txt (4 B", "PROBLEM: handed-in trajectory refused",
                "grading ", "trajectory INCOMPLETE");
        StringWriter k = new StringWriter();
        trace.setOut(new PrintWriter(k, true));
        assertThat(trace.execute("trace", out.toString(), "--kind", "file")).isZero();
        assertThat(k.toString().lines()).isNotEmpty().allSatisfy(l -> assertThat(l).contains(" file "));
        StringWriter a = new StringWriter();
        trace.setOut(new PrintWriter(a, true));
        assertThat(trace.execute("trace", out.toString(), "--atif")).isZero();
        JsonNode atif = new com.fasterxml.jackson.databind.ObjectMapper().readTree(a.toString());
        assertThat(atif.path("schema_version").asText()).isEqualTo("ATIF-v1.8");
        assertThat(atif.path("steps").size()).isEqualTo(atif.at("/final_metrics/total_steps").asInt()).isGreaterThan(4);
        assertThat(atif.at("/extra/crucible/status/complete").asBoolean(true)).isFalse();
        trace.setOut(new PrintWriter(k, true));
        assertThat(trace.execute("trace", out.toString(), "--kind", "nonsense")).isEqualTo(Main.EXIT_INVALID);
        assertThat(trace.execute("trace", dir.resolve("env").toString())).isEqualTo(Main.EXIT_INVALID);
    }
}
