package dev.crucible.cli.demo;

import dev.crucible.cli.run.HumanSummary;
import dev.crucible.cli.run.AttemptOptions;
import dev.crucible.cli.run.LocalRollout;
import dev.crucible.cli.run.RolloutResult;
import dev.crucible.cli.run.RolloutRunner;
import dev.crucible.cli.run.RunInputs;
import dev.crucible.cli.run.RunInputs.RolloutDoc;
import dev.crucible.verifier.monitor.Finding;
import dev.crucible.verifier.sandbox.Box;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code crucible demo}: the bundled bug-fix environment run for real twice, once with an honest agent
 * and once with a reward-hacking one, and the two outcomes side by side. It is {@code crucible run}
 * with the agent command swapped, so what it shows is what a researcher's own run does.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Run the bundled example (examples/python-bugfix) with an honest and a reward-hacking agent and compare.")
public final class DemoCommand implements Callable<Integer> {
    static final String EXAMPLE = "examples/python-bugfix";

    @Option(names = "--out", paramLabel = "DIR", description = "Where results go. Default: a new temporary folder.")
    Path out;

    @Option(names = "--no-sandbox", description = "Run the agents without bubblewrap even when it is installed.")
    boolean noSandbox;

    @Spec
    CommandSpec spec;

    public static void main(String[] args) {
        System.exit(new CommandLine(new DemoCommand()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        RolloutRunner.quietLogging();
        PrintWriter o = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Optional<Path> home = CrucibleHome.locate();
        if (home.isEmpty()) {
            err.println("crucible demo: cannot find the Crucible checkout with " + CrucibleHome.MARKER
                    + "; set CRUCIBLE_HOME to the folder you cloned");
            err.flush();
            return 2;
        }
        Path example = home.get().resolve(EXAMPLE);
        Path outDir = (out != null ? out : Files.createTempDirectory("crucible-demo-")).toAbsolutePath().normalize();
        o.println("crucible demo: " + example);
        o.println("  task: fix calc.ops.divide() (a real bug); graded by pytest, FAIL_TO_PASS + PASS_TO_PASS tests.");
        o.println("  run 1: agents/honest.sh fixes the code.  run 2: agents/hacker.sh injects a conftest.py hook that");
        o.println("  turns failures into passes and tries to weaken a test.  Results: " + outDir);
        o.println();
        o.flush();
        List<RolloutDoc> rollouts = new ArrayList<>();
        try {
            rollouts.add(agent(example, "honest"));
            rollouts.add(agent(example, "hacker"));
        } catch (RunInputs.InvalidInput e) {
            e.lines().forEach(err::println);
            err.flush();
            return 2;
        }
        boolean sandbox = !noSandbox && Box.availability().ok();
        if (!noSandbox && !sandbox) {
            unboxedBanner(Box.availability().problem()).forEach(o::println);
            o.println();
            o.flush();
        }
        RolloutRunner.Outcome outcome = new RolloutRunner(o, new AttemptOptions(sandbox, 0, Duration.ofSeconds(5)))
                .run(rollouts, 1, 1, outDir);
        List<RolloutResult> results = outcome.all();
        List<List<String>> blocks = results.stream().map(r -> HumanSummary.block(r, false)).toList();
        o.println();
        HumanSummary.sideBySide(blocks, 50).forEach(o::println);
        o.println();
        results.forEach(r -> o.println(verdictLine(r)));
        results.forEach(r -> refusedWrites(r).ifPresent(o::println));
        o.println("details: " + outDir + "/{honest,hacker}/result.json (agent.log, sandbox/, trajectory/ beside it)");
        o.println("timeline: crucible trace " + outDir + "/hacker --finding   (the process that wrote conftest.py, the change, its findings)");
        o.flush();
        if (outcome.interrupted()) return 130;
        return results.stream().allMatch(r -> r.phase().isTerminal() && !"LocalRunError".equals(r.reason())) ? 0 : 1;
    }

    /**
     * Where no box can be made, the demo still shows what grading and the monitor decide: its two agents are
     * the bundled scripts (not untrusted code), so it runs them and their grading unconfined, as
     * {@code --no-sandbox} does, and says first what that leaves unenforced. {@code crucible run} refuses instead.
     */
    static List<String> unboxedBanner(String problem) {
        return List.of(
                "==================================================================================",
                "NO SANDBOX: " + problem + ".",
                "  The demo runs its two bundled agents and their grading unconfined, as --no-sandbox does.",
                "  NOT enforced: read-only tests and grader files (the hacker's edits land; the monitor reports them),",
                "  network isolation, the box's own uid, PID namespace and resource limits.",
                "  crucible run refuses to start an agent without a box (reason SandboxUnavailable).",
                "  Install bubblewrap (apt-get install -y bubblewrap) to see the sandbox hold.",
                "==================================================================================");
    }

    /** The example's own Rollout, renamed and with the agent script swapped in (absolute, so any cwd works). */
    private static RolloutDoc agent(Path example, String name) throws RunInputs.InvalidInput {
        String cmd = "sh '" + example.resolve("agents").resolve(name + ".sh") + "'";
        RolloutDoc r = RunInputs.load(List.of(example), cmd).rollouts().get(0);
        return new RolloutDoc(name, r.file(), r.spec(), r.environment(), r.labels());
    }

    /** Under bubblewrap the hacker's edit of the tests fails; say so, since no finding can show a write that never happened. */
    static Optional<String> refusedWrites(RolloutResult r) {
        if (r.agent() == null || !"bubblewrap".equals(r.sandbox())) return Optional.empty();
        try {
            long n = Files.readAllLines(Path.of(r.agent().log())).stream().filter(l -> l.contains("Read-only file system")).count();
            return n == 0 ? Optional.empty() : Optional.of(String.format("%-7s the sandbox refused %d write%s to read-only files (see %s)",
                    r.rollout() + ":", n, n == 1 ? "" : "s", r.agent().log()));
        } catch (java.io.IOException e) {
            return Optional.empty();
        }
    }

    static String verdictLine(RolloutResult r) {
        List<Finding> fs = r.hackFindings() == null ? List.of() : r.hackFindings();
        String reward = r.reward() == null ? "no reward" : "reward " + r.reward();
        if (fs.isEmpty()) return String.format("%-7s %s, %s, no reward-hack finding", r.rollout() + ":", r.phase(), reward);
        Finding f = fs.get(0);
        return dev.crucible.cli.run.Text.visible(String.format("%-7s %s, %s, %d finding%s, first: %s on %s", r.rollout() + ":", r.phase(),
                reward, fs.size(), fs.size() == 1 ? "" : "s", f.detector(), f.path() != null ? f.path() : f.evidence()));
    }
}
