package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.crucible.verifier.toolchain.ExecEnvironments;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An attempt whose deadline passed before its agent could start ends TimedOut with the agent never run and nothing
 * graded (blind host round 2 at load 60 saw an agent start 12 s late). The late start is made the way it happens with
 * {@code --parallel}: another holder of the environment's setup lock (here this test) keeps the attempt waiting until
 * its deadline is 0.5 s past. Before f9ccce90 the agent started anyway, ran until the next tick (~100 ms) and its tree
 * was graded: result.json had {@code agent}, a {@code verdict} and a Running phase. The lock was once released 0.3 s
 * before the deadline, betting that the sandbox and the first scan take longer: on an idle CI machine they did not, the
 * agent started in time and was rightly graded, and the test failed. The watchdog stops a never-started attempt
 * {@link AttemptWatchdog#STOP_GRACE_S} s past the deadline; a machine so loaded that the attempt's own check comes later
 * gets the watchdog's never-run result instead, which the test also takes.
 */
@Timeout(300)
class LateStartTest {
    private static final int DEADLINE_S = 8;

    @Test
    void anAttemptPastItsDeadlineBeforeTheAgentStartsNeverRunsItNorGrades(@TempDir Path dir) throws Exception {
        String marker = "late-start-ran-" + ProcessHandle.current().pid();
        Path env = LocalRuns.copyExample(dir.resolve("env"),
                LocalRuns.rollout("late", "embedded", "echo " + marker + " > agent-ran.txt; echo " + marker + "; sleep 30", DEADLINE_S));
        Path manifest = env.resolve("environment.yaml"); // no setup script: its own deadline check would end the attempt first
        String m = Files.readString(manifest);
        Files.writeString(manifest, m.replace(m.substring(m.indexOf("  setup:\n"), m.indexOf("  task:\n")), ""));
        RunInputs.RolloutDoc doc = RunInputs.load(List.of(env), null).rollouts().get(0);
        var execution = ExecutionPlanner.plan(doc.environment(), env.resolve("workspace")); // the prefix the attempt will lock

        StringWriter buf = new StringWriter();
        PrintWriter out = new PrintWriter(buf, true);
        CompletableFuture<Integer> exit;
        try (java.io.Closeable held = ExecEnvironments.lock(execution)) {
            exit = CompletableFuture.supplyAsync(() -> new picocli.CommandLine(new RunCommand()).setOut(out).setErr(out)
                    .execute("-f", env.toString(), "--out", dir.resolve("out").toString()));
            // the progress lines carry the attempt's clock: "[   1.5s late] execution environment: ..." is printed just before it locks
            Pattern line = Pattern.compile("\\[\\s*([0-9.]+)s late\\] execution environment: ");
            Matcher seen = null;
            while (seen == null && !exit.isDone()) {
                Matcher mm = line.matcher(text(buf));
                if (mm.find()) seen = mm;
                else Thread.sleep(20);
            }
            assertThat(seen).as(text(buf)).isNotNull();
            long t0 = System.nanoTime() - (long) (Double.parseDouble(seen.group(1)) * 1e9);
            long release = t0 + (long) ((DEADLINE_S + 0.5) * 1e9);
            while (System.nanoTime() < release) Thread.sleep(10);
        }
        int code = exit.get();
        String o = text(buf);
        System.out.println(o); // which of the two never-run paths this machine took
        assertThat(code).as(o).isZero();
        JsonNode res = LocalRuns.json(dir.resolve("out/result.json"));
        assertThat(res.path("phase").asText()).as(o).isEqualTo("TimedOut");
        assertThat(res.path("reason").asText()).isEqualTo("DeadlineExceeded");
        // never started: no agent record, no Running phase, no grade of the (untouched) tree
        assertThat(res.path("agent").isMissingNode() || res.path("agent").isNull()).as(res.toPrettyString()).isTrue();
        assertThat(res.path("verdict").isMissingNode() || res.path("verdict").isNull()).as(res.toPrettyString()).isTrue();
        assertThat(o).doesNotContain("Running: agent:", marker);
        assertThat(o).containsAnyOf("deadline of " + DEADLINE_S + " s reached before the agent started: the agent never ran",
                "watchdog: the deadline passed");
        Path log = dir.resolve("out/agent.log");
        assertThat(Files.exists(log) ? Files.readString(log) : "").doesNotContain(marker);
        assertThat(LocalRuns.processesWith(marker)).isZero();
    }

    private static String text(StringWriter w) {
        synchronized (w.getBuffer()) {
            return w.toString();
        }
    }
}
