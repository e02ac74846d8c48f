package dev.crucible.cli.verify;

import dev.crucible.verifier.Environment;
import dev.crucible.verifier.bench.GradingBench;
import dev.crucible.verifier.config.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code crucible verify bench}: grading overhead against the bare test command on the same
 * repository (and on a synthetic larger suite), where the graded time went, and the hack monitor's
 * CPU share. Per suite a {@code phases_ms suite=…} line and a {@code suite=… overhead_ratio=…} line;
 * the last line is {@code bare_s=… graded_s=… overhead_ratio=… monitor_cpu_pct=… grading=… integrity=…
 * isolated_vs_inprocess=…} for the environment's own suite ({@code isolated_vs_inprocess}: the graded time against
 * today's in-process pytest grading of the same suite, issue 33), then the synthetic and call-heavy suites' ratios.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Measure grading overhead over the bare test command (per phase, on the environment's suite, a synthetic larger one and a call-heavy one), the isolated oracle's time against in-process grading, and the monitor's CPU share.")
public final class VerifyBenchCommand implements Callable<Integer> {
    static final Path DEFAULT_ENV = Path.of("examples/python-bugfix/environment.yaml");

    @Spec
    CommandSpec spec;

    @Option(names = {"-f", "--file"}, paramLabel = "ENV.yaml", description = "RLEnvironment manifest (default: ${DEFAULT-VALUE})",
            defaultValue = "examples/python-bugfix/environment.yaml")
    Path file;

    @Option(names = "--workspace", paramLabel = "DIR", description = "repository to run on (default: the environment's workspace)")
    Path workspace;

    @Option(names = "--runs", description = "measured runs of each (median is reported; default: ${DEFAULT-VALUE})", defaultValue = "5")
    int runs;

    @Option(names = "--monitor-window", paramLabel = "SECONDS", description = "how long the monitor is measured (default: ${DEFAULT-VALUE})",
            defaultValue = "5")
    int window;

    @Option(names = "--synthetic-tests", paramLabel = "N",
            description = "size of the synthetic suite measured after the environment's (0: skip it; default: ${DEFAULT-VALUE})",
            defaultValue = "150")
    int syntheticTests;

    @Option(names = "--call-tests", paramLabel = "N",
            description = "size of the call-heavy suite measured last: tests that each call the code under test about 1000 times"
                    + " (the isolated oracle's cost per call; 0: skip it; default: ${DEFAULT-VALUE})",
            defaultValue = "20")
    int callTests;

    @Option(names = "--child-tests", paramLabel = "N",
            description = "size of the CLI suite measured after it: tests that each start the package's program (python -m),"
                    + " which isolated grading runs in a box of its own (0: skip it; default: ${DEFAULT-VALUE})",
            defaultValue = "10")
    int childTests;

    @Override
    public Integer call() {
        var err = spec.commandLine().getErr();
        if (runs < 1) return VerifyCommand.bad(err, "--runs: must be at least 1");
        if (syntheticTests < 0) return VerifyCommand.bad(err, "--synthetic-tests: must be 0 or more");
        if (callTests < 0) return VerifyCommand.bad(err, "--call-tests: must be 0 or more");
        if (childTests < 0) return VerifyCommand.bad(err, "--child-tests: must be 0 or more");
        try {
            Environment env = Environment.load(file);
            Path ws = workspace != null ? workspace : env.workspacePath().orElseThrow(() -> new ConfigException(
                    file + ": spec.workspace.path: needed when --workspace is not given"));
            if (!Files.isDirectory(ws)) return VerifyCommand.bad(err, "--workspace " + ws + ": no such directory");
            GradingBench.Result r = GradingBench.run(env, ws, runs, Duration.ofSeconds(Math.max(1, window)), syntheticTests, callTests, childTests);
            r.lines().forEach(spec.commandLine().getOut()::println);
            spec.commandLine().getOut().flush();
            return 0;
        } catch (ConfigException e) {
            return VerifyCommand.bad(err, e.getMessage());
        }
    }
}
