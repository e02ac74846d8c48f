package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.crucible.cli.snapshot.RestoreCommand;
import dev.crucible.cli.snapshot.SnapshotCommand;
import dev.crucible.snapshot.criu.CriuBinary;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Local rollouts snapshotted and restored with real CRIU, real processes and real pytest grading:
 * a counting agent (then the honest fix) is snapshotted mid-run, restored twice into two folders,
 * and each branch continues from the dumped count on its own and is graded.
 */
class RolloutSnapshotTest {
    @TempDir
    Path tmp;

    @BeforeEach
    void needsCriu() {
        assumeTrue("root".equals(System.getProperty("user.name")), "needs root: CRIU dumps and restores process trees");
        assumeTrue(CriuBinary.find().isPresent(), CriuBinary.MISSING);
        // issue 34: --snapshot-every is refused until its agent can stay in a box CRIU dumps (SnapshotRefusalTest)
        String refused = SnapshotPolicy.refusal(dev.crucible.snapshot.store.ManifestKey.defaultLocalFile(), true);
        assumeTrue(refused == null, "--snapshot-every: " + refused);
    }

    record Cli(int exit, String out, String err) {}

    static Cli cli(Object command, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(command);
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int exit = cl.execute(args);
        return new Cli(exit, out.toString(), err.toString());
    }

    /** Counts to {@code n} (one line per step into counts.txt and the log), then fixes the bug honestly. */
    private Path countingAgent(int n, double step) throws Exception {
        Path script = tmp.resolve("agents/count.sh");
        Files.createDirectories(script.getParent());
        Files.writeString(script, """
                i=0
                while [ $i -lt %d ]; do i=$((i+1)); echo $i >> counts.txt; echo "tick $i"; sleep %s; done
                sh %s
                """.formatted(n, step, LocalRuns.agent("honest.sh")));
        return script;
    }

    @Test
    void aRolloutSnapshottedMidRunRestoresIntoTwoIndependentBranchesThatAreGraded() throws Exception {
        Path env = LocalRuns.withoutSetup(LocalRuns.copyExample(tmp.resolve("env"), null));
        Path script = countingAgent(60, 0.1);
        Path store = tmp.resolve("store");
        Path run = tmp.resolve("run");
        CompletableFuture<LocalRuns.Run> original = CompletableFuture.supplyAsync(() -> LocalRuns.run("-f", env.toString(),
                "--agent-cmd", "sh " + script, "--snapshot-every", "1h", "--snapshot-store", store.toString(), "--out", run.toString()));

        await().atMost(Duration.ofSeconds(60)).until(() -> Files.isRegularFile(run.resolve(RunningRollout.FILE))
                && lines(run.resolve("sandbox/workspace/counts.txt")) >= 10);
        Cli snap = cli(new SnapshotCommand(), run.toString());
        assertThat(snap.exit()).as(snap.err()).isZero();
        Matcher m = Pattern.compile("snapshot=(\\S+)").matcher(snap.out());
        assertThat(m.find()).as(snap.out()).isTrue();
        String id = m.group(1);

        LocalRuns.Run done = original.get();
        assertThat(done.exit()).as(done.out() + done.err()).isZero();
        assertThat(run.resolve(RunningRollout.FILE)).as("running.json is removed when the agent ends").doesNotExist();
        JsonNode first = LocalRuns.json(run.resolve("result.json"));
        assertThat(first.get("phase").asText()).isEqualTo("Succeeded");
        assertThat(first.get("sandbox").asText()).isEqualTo("namespaces");
        assertThat(first.get("snapshots").findValuesAsText("id")).containsExactly(id);
        int dumped = countsIn(store, id);
        assertThat(dumped).as("the snapshot was taken mid-run").isBetween(10, 59);

        // two branches of one snapshot at the same time
        Path b1 = tmp.resolve("b1");
        Path b2 = tmp.resolve("b2");
        CompletableFuture<Cli> r1 = CompletableFuture.supplyAsync(() -> cli(new RestoreCommand(), id, "--store", store.toString(), "--out", b1.toString()));
        CompletableFuture<Cli> r2 = CompletableFuture.supplyAsync(() -> cli(new RestoreCommand(), id, "--store", store.toString(), "--out", b2.toString()));
        for (var r : List.of(r1.get(), r2.get())) assertThat(r.exit()).as(r.out() + r.err()).isZero();

        for (Path b : List.of(b1, b2)) {
            JsonNode res = LocalRuns.json(b.resolve("result.json"));
            assertThat(res.get("phase").asText()).as(b.toString()).isEqualTo("Succeeded");
            assertThat(res.get("reward").asDouble()).isEqualTo(1.0);
            assertThat(res.get("restoredFrom").asText()).isEqualTo(id);
            assertThat(res.get("agent").get("exitCode").asInt()).isZero();
            assertThat(res.get("workspace").asText()).startsWith(b.toString());
            // each branch counted on from the dumped count to the end, once: a restart or a shared file would repeat numbers
            assertThat(Files.readAllLines(b.resolve("sandbox/workspace/counts.txt")))
                    .containsExactlyElementsOf(IntStream.rangeClosed(1, 60).mapToObj(Integer::toString).toList());
            List<String> log = Files.readAllLines(b.resolve("agent.log"));
            assertThat(log.stream().filter(l -> l.startsWith("tick ")).toList())
                    .containsExactlyElementsOf(IntStream.rangeClosed(1, 60).mapToObj(i -> "tick " + i).toList());
        }
        // the branches wrote only their own folders: the original's files are as the original run left them
        assertThat(Files.readAllLines(run.resolve("sandbox/workspace/counts.txt"))).hasSize(60);
        assertThat(Files.readAllLines(run.resolve("agent.log")).stream().filter(l -> l.startsWith("tick ")).toList())
                .containsExactlyElementsOf(IntStream.rangeClosed(1, 60).mapToObj(i -> "tick " + i).toList());
        // a finished rollout cannot be snapshotted
        Cli after = cli(new SnapshotCommand(), run.toString());
        assertThat(after.exit()).isEqualTo(3);
        assertThat(after.err()).contains("no running.json");
    }

    @Test
    void snapshotEveryTakesPeriodicSnapshotsAndKeepsTheNewestN() throws Exception {
        Path env = LocalRuns.withoutSetup(LocalRuns.copyExample(tmp.resolve("env"), null));
        Path script = countingAgent(60, 0.15);
        Path store = tmp.resolve("store");
        Path run = tmp.resolve("run");
        LocalRuns.Run r = LocalRuns.run("-f", env.toString(), "--agent-cmd", "sh " + script, "--snapshot-every", "1s", "--snapshot-keep", "2",
                "--snapshot-store", store.toString(), "--out", run.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("sandbox: namespaces").contains("(periodic)").contains("pruned ").contains("snapshots 2 (newest ");
        JsonNode res = LocalRuns.json(run.resolve("result.json"));
        assertThat(res.get("phase").asText()).isEqualTo("Succeeded");
        List<String> kept = res.get("snapshots").findValuesAsText("id");
        assertThat(kept).hasSize(2);
        assertThat(res.get("snapshots").findValuesAsText("trigger")).containsOnly("periodic");
        // complete ones beyond --snapshot-keep are pruned; one that failed because the agent ended mid-dump (seen on a
        // loaded machine) stays marked FAILED, for the garbage collector's retention, and is not in the result
        List<String> complete = new dev.crucible.snapshot.LocalSnapshots(store).list().stream()
                .filter(m -> m.state == dev.crucible.snapshot.client.store.SnapshotState.COMPLETE).map(m -> m.id).toList();
        assertThat(complete).containsExactlyInAnyOrderElementsOf(kept);
        // the trajectory names every snapshot taken, pruned ones too (issue 36)
        List<dev.crucible.trajectory.TraceEvent> snaps = new java.util.ArrayList<>();
        dev.crucible.trajectory.TrajectoryReader.read(run.resolve("trajectory"), e -> {
            if ("snapshot".equals(e.kind())) snaps.add(e);
        }, p -> { });
        assertThat(snaps).extracting(e -> e.text("id")).containsAll(kept);
        assertThat(snaps).allSatisfy(e -> assertThat(e.text("op") + " " + e.text("trigger")).isEqualTo("taken periodic"));
    }

    @Test
    void badInputGetsAClearErrorAndExitCode() throws Exception {
        Path store = tmp.resolve("store");
        Files.createDirectories(store.resolve("snapshots"));
        Cli unknown = cli(new RestoreCommand(), "nope", "--store", store.toString(), "--out", tmp.resolve("x").toString());
        assertThat(unknown.exit()).isEqualTo(2);
        assertThat(unknown.err()).contains("SNAPSHOT: no snapshot 'nope' in " + store);

        Path full = Files.createDirectories(tmp.resolve("full"));
        Files.writeString(full.resolve("keep.txt"), "mine");
        Path fake = Files.createDirectories(store.resolve("snapshots/s1"));
        Files.writeString(fake.resolve("manifest.json"), "{\"id\":\"s1\",\"state\":\"COMPLETE\"}");
        Cli notEmpty = cli(new RestoreCommand(), "s1", "--store", store.toString(), "--out", full.toString());
        assertThat(notEmpty.exit()).isEqualTo(2);
        assertThat(notEmpty.err()).contains("--out: " + full + " exists and is not an empty folder");
        assertThat(Files.readString(full.resolve("keep.txt"))).isEqualTo("mine");

        Cli noMeta = cli(new RestoreCommand(), "s1", "--store", store.toString(), "--out", tmp.resolve("y").toString());
        assertThat(noMeta.exit()).isEqualTo(2);
        assertThat(noMeta.err()).contains("not a rollout's");

        LocalRuns.Run badDuration = LocalRuns.run("-f", LocalRuns.example().toString(), "--agent-cmd", "true", "--snapshot-every", "5x");
        assertThat(badDuration.exit()).isEqualTo(2);
        assertThat(badDuration.err()).contains("--snapshot-every: expected a duration such as 30s").contains("'5x'");
        LocalRuns.Run keepAlone = LocalRuns.run("-f", LocalRuns.example().toString(), "--agent-cmd", "true", "--snapshot-keep", "2");
        assertThat(keepAlone.exit()).isEqualTo(2);
        assertThat(keepAlone.err()).contains("--snapshot-keep: only with --snapshot-every");

        Cli noDir = cli(new SnapshotCommand(), tmp.resolve("missing").toString());
        assertThat(noDir.exit()).isEqualTo(2);
        assertThat(noDir.err()).contains("ROLLOUT_DIR: no such folder");
    }

    @Test
    void aStaleStateFileIsRefusedAndNothingIsSnapshotted() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("att"));
        Path store = tmp.resolve("store");
        long self = ProcessHandle.current().pid(); // a live pid that is not the agent: the start time tells them apart
        RunningRollout stale = new RunningRollout(self, 12345, self, "g-a0-abc", List.of("/nowhere/env.yaml"), "r", 0, List.of("true"),
                dir.toString(), dir.toString(), "sandbox/workspace", "agent.exit", store.toString(), "namespaces", 60,
                "2020-01-01T00:00:00Z", 0, null, null, null);
        stale.write(dir);
        Cli c = cli(new SnapshotCommand(), dir.toString());
        assertThat(c.exit()).isEqualTo(3);
        assertThat(c.err()).contains("stale").contains("pid " + self + " now belongs to another process").contains("nothing was snapshotted");
        assertThat(store).doesNotExist();

        Process p = new ProcessBuilder("true").start();
        p.waitFor();
        new RunningRollout(p.pid(), 1, self, "g-a0-abc", List.of("/nowhere/env.yaml"), "r", 0, List.of("true"), dir.toString(), dir.toString(),
                "sandbox/workspace", "agent.exit", store.toString(), "namespaces", 60, "2020-01-01T00:00:00Z", 0, null, null, null).write(dir);
        Cli gone = cli(new SnapshotCommand(), dir.toString());
        assertThat(gone.exit()).isEqualTo(3);
        assertThat(gone.err()).contains("stale: the agent (pid " + p.pid());
    }

    private static long lines(Path f) {
        try {
            return Files.isRegularFile(f) ? Files.readAllLines(f).size() : 0;
        } catch (Exception e) {
            return 0;
        }
    }

    /** How far the agent had counted in the snapshot: the counts.txt inside its archived attempt folder. */
    private static int countsIn(Path store, String id) throws Exception {
        Process p = new ProcessBuilder("tar", "-xOf", store.resolve("snapshots").resolve(id).resolve("workspace.tar").toString(),
                "./sandbox/workspace/counts.txt").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        p.waitFor();
        return (int) out.lines().filter(l -> !l.isBlank()).count();
    }
}
