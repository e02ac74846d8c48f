package dev.crucible.cli.run;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code crucible run}: runs RLEnvironment and Rollout documents on this machine as real processes,
 * with the same verifier and live hack monitor as the cluster's sidecar. Exit 0 when every rollout
 * reached a terminal phase, whatever its reward; 2 on invalid input; 130 after Ctrl-C and 143 after
 * SIGTERM (the JVM's 128 + signal, after its shutdown hook wrote every result); 1 when the local runtime
 * itself failed.
 */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = {"Run an environment and its rollouts locally: workspace copy, setup, the agent under bubblewrap "
                + "(or the environment API for a trainer), the live reward-hack monitor, and grading.",
                "Writes OUT/result.json per attempt and OUT/summary.json when there are several."})
public final class RunCommand implements Callable<Integer> {
    static final int EXIT_INVALID = 2;
    static final int EXIT_INTERRUPTED = 130;

    @Option(names = {"-f", "--filename"}, required = true, arity = "1..*", paramLabel = "FILE|DIR",
            description = "RLEnvironment and Rollout manifests (files or folders of YAML).")
    List<Path> paths;

    @Option(names = "--agent-cmd", paramLabel = "CMD",
            description = "Shell command run as the agent in the workspace, instead of the Rollout's spec.agent.command "
                    + "(makes the rollout embedded).")
    String agentCmd;

    @Option(names = "--attempts", defaultValue = "1", paramLabel = "N", description = "Attempts per rollout (a group). Default: ${DEFAULT-VALUE}.")
    int attempts;

    @Option(names = "--parallel", defaultValue = "1", paramLabel = "P", description = "Attempts run at the same time. Default: ${DEFAULT-VALUE}.")
    int parallel;

    @Option(names = "--out", paramLabel = "DIR", description = "Where results go. Default: crucible-out/run-TIMESTAMP.")
    Path out;

    @Option(names = "--port", defaultValue = "0", paramLabel = "N",
            description = "Interactive mode: port of the environment API on 127.0.0.1 (attempt i gets N+i). Default: an ephemeral port.")
    int port;

    @Option(names = "--print-token", description = "Interactive mode: also print the environment API's token on standard output "
            + "(by default it is only in OUT/api-token, mode 0600, and the output names that file).")
    boolean printToken;

    @Option(names = "--no-sandbox", description = "Run the agent without bubblewrap even when it is installed (a warning says what is then not enforced).")
    boolean noSandbox;

    @Option(names = "--snapshot-every", paramLabel = "DURATION",
            description = {"Snapshot the running agent (CRIU memory, left running, plus the attempt folder) every DURATION "
                    + "(30s, 5m, 1h); crucible restore SNAPSHOT --out DIR continues or branches it. Refused for now (exit 2, before "
                    + "anything runs): CRIU cannot dump the agent's box, and outside it the agent could read the snapshot sealing key."})
    String snapshotEvery;

    @Option(names = "--snapshot-keep", defaultValue = "3", paramLabel = "N",
            description = "Snapshots kept per attempt; older ones are deleted. Default: ${DEFAULT-VALUE}.")
    int snapshotKeep;

    @Option(names = "--snapshot-store", paramLabel = "DIR",
            description = "Image store for snapshots. Default: $CRUCIBLE_SNAPSHOTS or ~/.cache/crucible/snapshots (as crucible snapshot list).")
    Path snapshotStore;

    @Spec
    CommandSpec spec;

    public static void main(String[] args) {
        System.exit(new picocli.CommandLine(new RunCommand()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        RolloutRunner.quietLogging();
        PrintWriter o = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (attempts < 1 || attempts > 4096) return invalid(err, "--attempts: must be between 1 and 4096, got " + attempts);
        if (parallel < 1) return invalid(err, "--parallel: must be at least 1, got " + parallel);
        if (port < 0 || port > 65535) return invalid(err, "--port: must be between 0 and 65535, got " + port);
        if (agentCmd != null && agentCmd.isBlank()) return invalid(err, "--agent-cmd: must not be empty");
        SnapshotPolicy snapshots = null;
        if (snapshotEvery != null) {
            try {
                snapshots = new SnapshotPolicy(SnapshotPolicy.parseDuration("--snapshot-every", snapshotEvery), snapshotKeep,
                        (snapshotStore != null ? snapshotStore : SnapshotPolicy.defaultStore()).toAbsolutePath().normalize());
            } catch (IllegalArgumentException e) {
                return invalid(err, e.getMessage());
            }
            if (snapshotKeep < 1) return invalid(err, "--snapshot-keep: must be at least 1, got " + snapshotKeep);
            String refused = SnapshotPolicy.refusal(dev.crucible.snapshot.store.ManifestKey.defaultLocalFile(),
                    dev.crucible.snapshot.criu.CriuBinary.find().isPresent());
            if (refused != null) return invalid(err, "--snapshot-every: " + refused);
        } else if (snapshotStore != null || spec.commandLine().getParseResult().hasMatchedOption("--snapshot-keep")) {
            return invalid(err, (snapshotStore != null ? "--snapshot-store" : "--snapshot-keep") + ": only with --snapshot-every");
        }
        Path outDir = (out != null ? out : Path.of("crucible-out", "run-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))))
                .toAbsolutePath().normalize();
        RunInputs inputs;
        try {
            inputs = RunInputs.load(paths, agentCmd, outDir);
        } catch (RunInputs.InvalidInput e) {
            e.lines().forEach(err::println);
            err.println("crucible run: invalid input (" + e.lines().size() + " error" + (e.lines().size() == 1 ? "" : "s") + "); nothing was run");
            err.flush();
            return EXIT_INVALID;
        }
        if (snapshots != null) {
            for (RunInputs.RolloutDoc r : inputs.rollouts()) {
                if (r.interactive()) {
                    return invalid(err, "--snapshot-every: rollout " + r.name() + " is interactive (a trainer drives it through the"
                            + " environment API); only embedded rollouts, whose agent is a process tree, are snapshotted");
                }
            }
        }
        if (spec.commandLine().getParseResult().hasMatchedOption("--port") && inputs.rollouts().stream().noneMatch(RunInputs.RolloutDoc::interactive)) {
            // a trainer that asked for the API would otherwise wait on a port nobody opens while an agent runs
            return invalid(err, "--port: serves the environment API of interactive rollouts, but every rollout given is embedded ("
                    + inputs.rollouts().get(0).name() + " runs its own agent command); pass the environment's manifest alone"
                    + " (-f DIR/environment.yaml) to serve the API");
        }
        // made before its owner is checked: a folder another user makes meanwhile is theirs, and refused too
        try {
            java.nio.file.Files.createDirectories(outDir);
            String foreign = dev.crucible.files.OutputFolder.ownerRefusal(outDir, "--out");
            if (foreign != null) return invalid(err, foreign);
        } catch (java.io.IOException e) {
            return invalid(err, "--out: " + outDir + ": could not be made (" + e.getMessage() + ")");
        }
        OutLock lock;
        try {
            lock = OutLock.take(outDir);
        } catch (OutLock.Refused e) {
            return invalid(err, "--out: " + e.getMessage());
        }
        try (lock) {
            return runLocked(o, inputs, snapshots, outDir);
        }
    }

    private int runLocked(PrintWriter o, RunInputs inputs, SnapshotPolicy snapshots, Path outDir) throws Exception {
        o.println("crucible run: " + inputs.rollouts().size() + " rollout" + (inputs.rollouts().size() == 1 ? "" : "s") + " × " + attempts
                + " attempt" + (attempts == 1 ? "" : "s") + " → " + outDir);
        o.flush();
        RolloutRunner.Outcome outcome = new RolloutRunner(o, new AttemptOptions(!noSandbox, port, Duration.ofSeconds(5), snapshots, printToken))
                .run(inputs.rollouts(), attempts, parallel, outDir);
        printSummary(o, outcome);
        if (outcome.interrupted()) return EXIT_INTERRUPTED;
        return outcome.all().stream().anyMatch(r -> "LocalRunError".equals(r.reason())) ? 1 : 0;
    }

    static void printSummary(PrintWriter o, RolloutRunner.Outcome outcome) {
        synchronized (o) {
            o.println();
            for (GroupSummary g : outcome.groups()) {
                outcome.results().entrySet().stream().filter(e -> e.getKey().name().equals(g.rollout())).flatMap(e -> e.getValue().stream())
                        .forEach(r -> HumanSummary.block(r, g.attempts() > 1).forEach(o::println));
            }
            for (GroupSummary g : outcome.groups()) if (g.attempts() > 1) o.println(g.line());
            if (outcome.summary() != null) o.println("summary: " + outcome.summary());
            else outcome.groups().forEach(g -> g.results().forEach(e -> o.println("result: " + e.result())));
            o.flush();
        }
    }

    private static int invalid(PrintWriter err, String message) {
        err.println("crucible run: " + message);
        err.flush();
        return EXIT_INVALID;
    }
}
