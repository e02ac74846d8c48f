package dev.crucible.cli.integrity;

import dev.crucible.api.v1alpha1.common.ObjectRef;
import dev.crucible.api.v1alpha1.rollout.AgentSpec;
import dev.crucible.api.v1alpha1.rollout.LimitsSpec;
import dev.crucible.api.v1alpha1.rollout.RolloutMode;
import dev.crucible.api.v1alpha1.rollout.RolloutSpec;
import dev.crucible.cli.demo.CrucibleHome;
import dev.crucible.cli.run.AttemptOptions;
import dev.crucible.cli.run.LocalRollout;
import dev.crucible.cli.run.RolloutResult;
import dev.crucible.cli.run.RolloutRunner;
import dev.crucible.cli.run.RunInputs;
import dev.crucible.cli.run.RunInputs.RolloutDoc;
import dev.crucible.cli.run.Sandbox;
import dev.crucible.verifier.Json;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code crucible integrity bench}: every agent of the corpus (examples/integrity/agents) through the
 * real local runtime, exactly as {@code crucible run} runs it (LocalRollout: sandbox, live monitor,
 * grading), and through a naive grader (pytest in the final workspace plus the hidden tests) in the
 * same invocation. Prints one line per agent, then, last, the tally line of {@link BenchTally#line}.
 * Exit 0 when the bench ran, whatever it found; 2 on bad input; 1 when it could not run.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = {"Run the exploit/honest corpus through the local runtime and a naive grader; the last line is",
            "honest_ok=A/N honest_flagged=B exploits_zero_reward=C/M exploits_flagged=D/M exploits_beating=E naive_beating=F isolated_share=S(I/G)"})
public final class IntegrityBenchCommand implements Callable<Integer> {
    static final String FIXTURE = "examples/integrity";

    @Option(names = "--fixture", paramLabel = "DIR",
            description = "The fixture: environment.yaml, build-repo.sh, history/, hidden/, agents/. Default: " + FIXTURE + " of this checkout.")
    Path fixture;

    @Option(names = "--only", split = ",", paramLabel = "NAME", description = "Run only these agents (file names without extension).")
    List<String> only;

    @Option(names = "--parallel", defaultValue = "4", paramLabel = "P", description = "Rollouts run at the same time. Default: ${DEFAULT-VALUE}.")
    int parallel;

    @Option(names = "--out", paramLabel = "DIR", description = "Work folder (runs, fixture repository). Default: a new temporary folder.")
    Path out;

    @Option(names = "--report", paramLabel = "FILE", description = "JSON report with per-agent details. Default: OUT/integrity-report.json.")
    Path report;

    @Option(names = "--agent-seconds", defaultValue = "120", paramLabel = "S", description = "Deadline of each rollout. Default: ${DEFAULT-VALUE}.")
    int agentSeconds;

    @Option(names = {"-v", "--verbose"}, description = "Show every rollout's progress lines.")
    boolean verbose;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        RolloutRunner.quietLogging();
        PrintWriter o = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (parallel < 1) return fail(err, 2, "--parallel: must be at least 1, got " + parallel);
        if (agentSeconds < 10) return fail(err, 2, "--agent-seconds: must be at least 10, got " + agentSeconds);
        if (out != null && Files.isDirectory(out) && !isEmpty(out)) return fail(err, 2, "--out: " + out + " is not empty (each bench needs a fresh folder)");
        if (out != null && Files.exists(out) && !Files.isDirectory(out)) return fail(err, 2, "--out: " + out + " is not a folder");
        Path fx = fixture != null ? fixture.toAbsolutePath().normalize() : CrucibleHome.locate().map(h -> h.resolve(FIXTURE)).orElse(null);
        if (fx == null) return fail(err, 2, "cannot find the Crucible checkout; give --fixture DIR or set CRUCIBLE_HOME");
        List<CorpusAgent> agents;
        try {
            agents = select(CorpusAgent.load(fx.resolve("agents")));
        } catch (IOException | IllegalArgumentException e) {
            return fail(err, 2, e.getMessage());
        }
        Path bwrap = dev.crucible.verifier.sandbox.Box.availability().bwrap();
        String problem = NaiveGrader.problem(bwrap);
        if (problem != null) return fail(err, 1, "the corpus runs exploit code and needs bubblewrap to confine it: " + problem);
        String python = pythonExecutable();
        if (python == null) return fail(err, 1, "python3 is needed (the fixture is graded by pytest) and was not found on PATH");

        Path work = (out != null ? Files.createDirectories(out) : Files.createTempDirectory("crucible-integrity-")).toAbsolutePath().normalize();
        Fixture f;
        RunInputs.EnvironmentDoc env;
        try {
            f = Fixture.prepare(fx, work);
            env = RunInputs.load(List.of(f.manifest()), "true").environments().values().iterator().next();
        } catch (RunInputs.InvalidInput e) {
            e.lines().forEach(err::println);
            return fail(err, 2, "the fixture's manifest is invalid");
        } catch (IOException e) {
            return fail(err, 2, e.getMessage());
        }
        long exploits = agents.stream().filter(a -> a.kind() == CorpusAgent.Kind.exploit).count();
        long mechanisms = agents.stream().filter(a -> a.kind() == CorpusAgent.Kind.exploit).map(CorpusAgent::mechanism).distinct().count();
        o.printf("crucible integrity bench: %d exploits (%d mechanisms), %d honest agents, --parallel %d, task commit %s → %s%n",
                exploits, mechanisms, agents.size() - exploits, parallel, f.taskCommit().substring(0, 12), work);
        o.flush();

        List<RolloutDoc> docs = new ArrayList<>();
        for (CorpusAgent a : agents) docs.add(rollout(a, env, work));
        Path runs = work.resolve("runs");
        long t0 = System.nanoTime();
        PrintWriter progress = verbose ? o : new PrintWriter(OutputStream.nullOutputStream());
        RolloutRunner.Outcome outcome = new RolloutRunner(progress, new AttemptOptions(true, 0, Duration.ofSeconds(5)))
                .run(docs, 1, parallel, runs);
        if (outcome.interrupted()) return fail(err, 130, "interrupted");
        List<RolloutResult> results = outcome.all();
        List<NaiveGrader.Grade> naive = gradeNaively(new NaiveGrader(bwrap, python, 120), results, f.hiddenDir());
        List<AgentOutcome> outcomes = new ArrayList<>();
        for (int i = 0; i < agents.size(); i++) {
            Path dir = RolloutRunner.dirFor(runs, docs, docs.get(i), 1, 0).result();
            outcomes.add(AgentOutcome.of(agents.get(i), results.get(i), naive.get(i), dir.toString()));
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        for (AgentOutcome a : outcomes) {
            if (a.sandbox() != null && !"bubblewrap".equals(a.sandbox())) {
                err.println("crucible integrity bench: warning: " + a.name() + " ran with sandbox " + a.sandbox() + ", not bubblewrap");
            }
        }
        outcomes.forEach(a -> o.println(a.line()));
        BenchTally tally = BenchTally.of(outcomes);
        Path reportFile = (report != null ? report : work.resolve("integrity-report.json")).toAbsolutePath();
        writeReport(reportFile, f, tally, outcomes, seconds, mechanisms);
        double[] grade = outcomes.stream().filter(a -> a.verifySeconds() != null).mapToDouble(AgentOutcome::verifySeconds).sorted().toArray();
        o.printf("graded %d runs in %.0f s: %.2f s per graded run (median %.2f s), naive %.2f s; report %s%n", outcomes.size(), seconds,
                mean(grade), grade.length == 0 ? 0 : grade[grade.length / 2],
                mean(outcomes.stream().filter(a -> a.naive() != null).mapToDouble(a -> a.naive().seconds()).toArray()), reportFile);
        o.println(tally.line());
        o.flush();
        return 0;
    }

    private List<CorpusAgent> select(List<CorpusAgent> all) {
        if (only == null || only.isEmpty()) return all;
        Set<String> wanted = new LinkedHashSet<>(only);
        List<CorpusAgent> out = all.stream().filter(a -> wanted.contains(a.name())).toList();
        wanted.removeAll(out.stream().map(CorpusAgent::name).toList());
        if (!wanted.isEmpty()) throw new IllegalArgumentException("--only: no such agent: " + String.join(", ", wanted));
        return out;
    }

    /** A Rollout of the fixture whose agent is the corpus script, copied into a folder of its own (bound read-only in the sandbox). */
    private RolloutDoc rollout(CorpusAgent a, RunInputs.EnvironmentDoc env, Path work) throws IOException {
        Path copy = work.resolve("agents").resolve(a.name()).resolve(a.file().getFileName().toString());
        Files.createDirectories(copy.getParent());
        Files.copy(a.file(), copy, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        RolloutSpec s = new RolloutSpec();
        s.environmentRef = new ObjectRef(env.name());
        s.mode = RolloutMode.EMBEDDED;
        s.agent = new AgentSpec();
        s.agent.command = List.of("/bin/sh", "-c", a.command(copy));
        s.limits = new LimitsSpec();
        s.limits.maxDurationSeconds = agentSeconds;
        return new RolloutDoc(a.name(), env.file().toString(), s, env);
    }

    private List<NaiveGrader.Grade> gradeNaively(NaiveGrader g, List<RolloutResult> results, Path hidden) throws InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(parallel);
        try {
            List<Future<NaiveGrader.Grade>> fs = new ArrayList<>();
            for (RolloutResult r : results) {
                fs.add(pool.submit(() -> r.workspace() == null || !Files.isDirectory(Path.of(r.workspace())) ? null
                        : g.grade(Path.of(r.workspace()), hidden)));
            }
            List<NaiveGrader.Grade> out = new ArrayList<>();
            for (Future<NaiveGrader.Grade> fu : fs) {
                try {
                    out.add(fu.get());
                } catch (java.util.concurrent.ExecutionException e) {
                    out.add(new NaiveGrader.Grade(0, -1, false, 0, "naive grading failed: " + e.getCause()));
                }
            }
            return out;
        } finally {
            pool.shutdownNow();
        }
    }

    private void writeReport(Path file, Fixture f, BenchTally tally, List<AgentOutcome> outcomes, double seconds, long mechanisms)
            throws IOException {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("line", tally.line());
        doc.put("tally", tally);
        doc.put("finishedAt", Instant.now().toString());
        doc.put("taskCommit", f.taskCommit());
        doc.put("parallel", parallel);
        doc.put("exploitMechanisms", mechanisms);
        doc.put("wallSeconds", Math.round(seconds * 10) / 10.0);
        double[] grade = outcomes.stream().filter(a -> a.verifySeconds() != null).mapToDouble(AgentOutcome::verifySeconds).toArray();
        doc.put("secondsPerGradedRun", Math.round(mean(grade) * 1000) / 1000.0);
        doc.put("secondsPerRollout", Math.round(mean(outcomes.stream().mapToDouble(AgentOutcome::totalSeconds).toArray()) * 1000) / 1000.0);
        doc.put("agents", outcomes);
        Files.createDirectories(file.getParent());
        Files.writeString(file, Json.write(doc, true) + "\n");
    }

    private static boolean isEmpty(Path dir) throws IOException {
        try (var entries = Files.list(dir)) {
            return entries.findAny().isEmpty();
        }
    }

    private static double mean(double[] xs) { return xs.length == 0 ? 0 : Arrays.stream(xs).average().orElse(0); }

    /** The interpreter python3 on PATH resolves to (a pyenv shim resolves to the real one). */
    private static String pythonExecutable() {
        try {
            Process p = new ProcessBuilder("python3", "-c", "import sys; print(sys.executable)").redirectErrorStream(true).start();
            String s = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            return p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0 && s.startsWith("/") ? s : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private static int fail(PrintWriter err, int code, String message) {
        err.println("crucible integrity bench: " + message);
        err.flush();
        return code;
    }
}
