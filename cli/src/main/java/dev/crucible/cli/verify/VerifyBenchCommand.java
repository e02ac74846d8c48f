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
 * repository, and the hack monitor's CPU share, as one line
 * {@code bare_s=… graded_s=… overhead_ratio=… monitor_cpu_pct=…}.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Measure grading overhead over the bare test command and the monitor's CPU share.")
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

    @Override
    public Integer call() {
        var err = spec.commandLine().getErr();
        if (runs < 1) return VerifyCommand.bad(err, "--runs: must be at least 1");
        try {
            Environment env = Environment.load(file);
            Path ws = workspace != null ? workspace : env.workspacePath().orElseThrow(() -> new ConfigException(
                    file + ": spec.workspace.path: needed when --workspace is not given"));
            if (!Files.isDirectory(ws)) return VerifyCommand.bad(err, "--workspace " + ws + ": no such directory");
            GradingBench.Result r = GradingBench.run(env, ws, runs, Duration.ofSeconds(Math.max(1, window)));
            spec.commandLine().getOut().println(r.line());
            spec.commandLine().getOut().flush();
            return 0;
        } catch (ConfigException e) {
            return VerifyCommand.bad(err, e.getMessage());
        }
    }
}
