package dev.crucible.verifier.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.crucible.verifier.Environment;
import dev.crucible.verifier.Episode;
import dev.crucible.verifier.EpisodeOptions;
import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.exec.ExecRequest;
import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.exec.LocalExecutor;
import dev.crucible.verifier.exec.ProcessTable;
import dev.crucible.verifier.support.Fixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Graded commands in a box: real pytest grades, the code under test reaches nothing of the host and leaves nothing running. */
class GradingSandboxTest {
    @TempDir Path dir;

    static final String FIX = "def add(a, b):\n    return a + b\n\n\ndef subtract(a, b):\n    return a - b\n\n\n"
            + "def divide(a, b):\n    if b == 0:\n        raise ValueError(\"division by zero\")\n    return a / b\n";

    @BeforeEach
    void needsBox() { assumeTrue(Box.availability().ok(), () -> "no box here: " + Box.availability().problem()); }

    static EpisodeOptions boxed(Path state) {
        return EpisodeOptions.defaults().withIntervals(Duration.ofMillis(200), Duration.ofMillis(50)).withStateDir(state)
                .withGradingExecutor(new GradingSandbox(BoxLimits.defaults()));
    }

    @Test
    void anHonestFixGradesOneInTheBox() {
        Environment env = Environment.load(Fixtures.copyExample(dir));
        try (Episode ep = new Episode(env, env.workspacePath().orElseThrow(), boxed(dir.resolve("state")))) {
            ep.reset();
            Fixtures.write(ep.workspace().resolve("calc/ops.py"), FIX);
            VerifyReport r = ep.verify();
            assertThat(r.reward()).as(r.reason()).isEqualTo(1.0);
            assertThat(r.tests().total()).isEqualTo(4);
        }
    }

    @Test
    void aPytestCommandOfAnotherShapeStillReportsEachTestOnTheChannel() throws Exception {
        // `VAR=x python3 -m pytest` is not `pytest ARGS`: the reporter is loaded by name through PYTEST_ADDOPTS
        Path manifest = Fixtures.copyExample(dir);
        Files.writeString(manifest, Files.readString(manifest).replace("command: python3 -m pytest -q -p no:cacheprovider",
                "command: CALC_MODE=strict python3 -m pytest -q -p no:cacheprovider"));
        Environment env = Environment.load(manifest);
        assertThat(env.verifier().command()).startsWith("CALC_MODE=strict ");
        try (Episode ep = new Episode(env, env.workspacePath().orElseThrow(), boxed(dir.resolve("state")))) {
            ep.reset();
            Fixtures.write(ep.workspace().resolve("calc/ops.py"), FIX);
            VerifyReport r = ep.verify();
            assertThat(r.hackFindings()).as("findings").isEmpty();
            assertThat(r.reward()).as(r.reason()).isEqualTo(1.0);
            assertThat(r.tests().total()).isEqualTo(4);
        }
    }

    @Test
    void codeUnderTestReachesNothingOfTheHostAndLeavesNothingRunning() throws Exception {
        Environment env = Environment.load(Fixtures.copyExample(dir));
        Path state = dir.resolve("state");
        String marker = "31.4159" + ProcessHandle.current().pid();
        Path hostFile = Files.writeString(dir.resolve("host-secret.txt"), "secret");
        try (Episode ep = new Episode(env, env.workspacePath().orElseThrow(), boxed(state))) {
            ep.reset();
            Path ws = ep.workspace();
            // imported by the grading pytest: try to keep a daemon, write the workspace and the state folder, read a host file
            Fixtures.write(ws.resolve("calc/ops.py"), FIX + "\nimport os, subprocess\n"
                    + "subprocess.Popen(['sleep', '" + marker + "'], start_new_session=True)\n"
                    + "for p in [" + py(ws.resolve("from-grading.txt")) + ", " + py(state.resolve("from-grading.txt")) + "]:\n"
                    + "    try:\n        open(p, 'w').write('x')\n    except OSError:\n        pass\n"
                    + "SEEN = os.path.exists(" + py(hostFile) + ") or os.path.exists(" + py(state.resolve("initial")) + ")\n"
                    + "assert not SEEN, 'the host is visible from grading'\n");
            VerifyReport r = ep.verify();
            // the tests pass in the box; what the code tried (a daemon, writes and reads outside the tree) is an attempt
            // the isolated worker reports, and a counted finding floors the reward to train on
            assertThat(r.testReward()).as(r.reason()).isEqualTo(1.0);
            assertThat(r.hackFindings()).as("the worker's attempt findings").anySatisfy(f -> assertThat(f.rule()).startsWith("attempt-"));
            assertThat(r.reward()).isZero();
            assertThat(ws.resolve("from-grading.txt")).doesNotExist();
            assertThat(state.resolve("from-grading.txt")).doesNotExist();
            Thread.sleep(200);
            assertThat(ProcessTable.all()).noneSatisfy(p -> assertThat(ProcessTable.cmdline(p.pid())).contains(marker));
        }
    }

    @Test
    void theResultChannelOnFd3PassesThroughAndSupportIsReadOnly() throws Exception {
        Path base = Files.createDirectories(dir.resolve("gradebase"));
        Path grade = Files.createDirectories(base.resolve("grade-1"));
        Files.createDirectories(base.resolve("results-1/home"));
        Path support = Files.createDirectories(base.resolve("support-1"));
        Files.writeString(support.resolve("plugin.py"), "print('support')");
        Path channel = dir.resolve("channel");
        // what the grader's executor does: open fd 3 before anything graded runs, then exec the command
        GradingSandbox g = new GradingSandbox(BoxLimits.defaults(), (req, onStart) -> {
            List<String> argv = new ArrayList<>(List.of("/bin/bash", "-c", "exec 3>\"$0\"; exec \"$@\"", channel.toString()));
            argv.addAll(req.argv());
            return new LocalExecutor().run(new ExecRequest(argv, req.cwd(), req.env(), req.clearEnv(), req.timeout(), req.maxOutputBytes(),
                    req.stdin(), req.mergeStderr()), onStart);
        });
        ExecResult r = g.run(new ExecRequest(List.of("/bin/sh", "-c", "echo reported >&3; cat " + support.resolve("plugin.py")
                + "; echo x > " + support.resolve("evil") + " || echo SUPPORT_RO; echo x > " + grade.resolve("evil") + " || echo GRADE_RO;"
                + " echo ok > " + base.resolve("results-1/report")), grade, Map.of("PATH", "/usr/bin:/bin"), true, Duration.ofSeconds(30),
                64 * 1024, null, true));
        assertThat(r.stdout()).contains("support", "SUPPORT_RO", "GRADE_RO");
        assertThat(Files.readString(channel)).isEqualTo("reported\n");
        assertThat(base.resolve("results-1/report")).hasContent("ok");
    }

    @Test
    void aCommandOutsideAGradingTreeIsRefusedNotRunUnconfined() {
        ExecResult r = new GradingSandbox(BoxLimits.defaults()).run(ExecRequest.shell("touch " + dir.resolve("ran"), dir, Duration.ofSeconds(10)));
        assertThat(r.exitCode()).isEqualTo(126);
        assertThat(r.stderr()).contains("not inside a grade-N tree");
        assertThat(dir.resolve("ran")).doesNotExist();
    }

    /** A grade-N layout with a command that notes when it started, then waits for its input. */
    private ExecRequest waiting(Path grade, String tag) {
        String script = "date +%s%N > " + grade.resolveSibling("results-1").resolve("started-" + tag) + "; read line; echo " + tag + " got $line;"
                + " cat " + grade.resolve("built-later.txt") + " 2>/dev/null || echo no-tree";
        return new ExecRequest(List.of("/bin/sh", "-c", script), grade, Map.of("PATH", "/usr/bin:/bin"), true, Duration.ofSeconds(30),
                64 * 1024, null, true);
    }

    @Test
    void aPrestartedCommandStartsBeforeItIsAskedForAndSeesTheTreeBuiltAfter() throws Exception {
        Path base = Files.createDirectories(dir.resolve("gradebase"));
        Path grade = Files.createDirectories(base.resolve("grade-1"));
        Files.createDirectories(base.resolve("results-1/home"));
        GradingSandbox g = new GradingSandbox(BoxLimits.defaults());
        ExecRequest req = waiting(grade, "early");
        assertThat(g.prestart(req)).isTrue();
        Path started = base.resolve("results-1/started-early");
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> Files.isRegularFile(started) && Files.size(started) > 0);
        long asked = System.currentTimeMillis() * 1_000_000L;
        Files.writeString(grade.resolve("built-later.txt"), "the tree\n"); // as grading copies the tree into the bound folder
        ExecResult r = g.run(req.withStdin("go\n", true));
        assertThat(r.exitCode()).as(r.combined()).isZero();
        assertThat(r.stdout()).contains("early got go", "the tree");
        assertThat(Long.parseLong(Files.readString(started).strip())).isLessThan(asked);
    }

    @Test
    void anotherCommandInTheFolderRunsAsUsualAndTheWaitingOneStaysForItsOwnRequest() throws Exception {
        Path base = Files.createDirectories(dir.resolve("gradebase"));
        Path grade = Files.createDirectories(base.resolve("grade-1"));
        Files.createDirectories(base.resolve("results-1/home"));
        GradingSandbox g = new GradingSandbox(BoxLimits.defaults());
        ExecRequest early = waiting(grade, "early");
        assertThat(g.prestart(early)).isTrue();
        ExecResult build = g.run(waiting(grade, "build").withStdin("now\n", true));
        assertThat(build.stdout()).contains("build got now");
        ExecResult r = g.run(early.withStdin("later\n", true));
        assertThat(r.stdout()).contains("early got later");
        // taken once: the same request again starts a fresh command
        assertThat(g.run(early.withStdin("again\n", true)).stdout()).contains("early got again");
    }

    @Test
    void anEpisodeEndsItsWaitingInterpreterOnResetAndClose() throws Exception {
        Environment env = Environment.load(Fixtures.copyExample(dir));
        Path state = dir.resolve("state");
        try (Episode ep = new Episode(env, env.workspacePath().orElseThrow(), boxed(state))) {
            ep.reset();
            assertThat(waitingInterpreters(state, "support-1")).isPositive();
            ep.reset(); // a new attempt: the first one's interpreter is gone, the second one's waits
            assertThat(waitingInterpreters(state, "support-2")).isPositive();
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> waitingInterpreters(state, "support-1") == 0);
        }
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> waitingInterpreters(state, "support-") == 0);
    }

    @Test
    void withoutPrestartingGradingStartsEverythingWhenAsked() {
        Environment env = Environment.load(Fixtures.copyExample(dir));
        Path state = dir.resolve("state");
        GradingSandbox g = new GradingSandbox(BoxLimits.defaults());
        g.setPrestarting(false);
        EpisodeOptions opts = EpisodeOptions.defaults().withIntervals(Duration.ofMillis(200), Duration.ofMillis(50)).withStateDir(state).withGradingExecutor(g);
        try (Episode ep = new Episode(env, env.workspacePath().orElseThrow(), opts)) {
            ep.reset();
            assertThat(waitingInterpreters(state, "support-")).isZero();
            Fixtures.write(ep.workspace().resolve("calc/ops.py"), FIX);
            VerifyReport r = ep.verify();
            assertThat(r.reward()).as(r.reason()).isEqualTo(1.0);
        }
    }

    /** Processes of grading interpreters under {@code state} whose command line names {@code support} (launcher, bwrap, python). */
    private static long waitingInterpreters(Path state, String support) {
        return ProcessTable.all().stream().filter(p -> {
            String c = ProcessTable.cmdline(p.pid());
            return c != null && c.contains(state + "/" + support) && c.contains("python");
        }).count();
    }

    private static String py(Path p) { return "'" + p + "'"; }
}
