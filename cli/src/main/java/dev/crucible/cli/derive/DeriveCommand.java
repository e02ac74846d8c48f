package dev.crucible.cli.derive;

import dev.crucible.derive.Derivation;
import dev.crucible.derive.DerivationException;
import dev.crucible.derive.WorkflowDeriver;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code crucible derive}: an RLEnvironment manifest from a repository's own CI workflow. All logic is in
 * {@link WorkflowDeriver}; this class only reads flags and writes files, and writes nothing at all when
 * the derivation fails.
 */
@Command(name = "derive", mixinStandardHelpOptions = true,
        description = {"Derive an RLEnvironment from a GitHub Actions workflow job: its setup script, toolchains,",
                "env and test command come from the job's steps. Prints the manifest, preceded by a report of",
                "every step (kept as setup, as the test command, as lint, or dropped, and why).",
                "With --fix COMMIT (or --fixes N) it writes SWE-bench-style tasks cut from the repository's fix commits.",
                "Exit 0 on success, 2 when the workflow does not parse, the job does not exist or has no test step;",
                "with --fix/--fixes, 1 when a fix (every fix) was refused."})
public final class DeriveCommand implements Callable<Integer> {
    static final int EXIT_ERROR = 2;

    @Option(names = "--repo", paramLabel = "PATH", description = "the repository (a git working directory); or --repos")
    Path repo;

    @Option(names = "--repos", paramLabel = "LIST",
            description = "derive every repository of LIST (a file: one 'PATH [JOB NAME]' a line, # comments), --parallel at a "
                    + "time, each in a process of its own stopped after --repo-timeout; prints a table (result, reason, tests, setup "
                    + "and derive seconds) and repositories per hour; -o is the folder for manifests, reports and logs")
    Path repos;

    @Option(names = "--parallel", paramLabel = "N", defaultValue = "1", description = "with --repos: derives at a time (default: ${DEFAULT-VALUE})")
    int parallel;

    @Option(names = "--repo-timeout", paramLabel = "SECONDS", defaultValue = "900",
            description = "with --repos: stop a repository's derive after this long and record a timeout (default: ${DEFAULT-VALUE})")
    long repoTimeout;

    @Option(names = "--commit", paramLabel = "SHA",
            description = "commit to read the workflow at (HEAD works; recorded as the full id); required unless "
                    + "--fix is given; with --fixes, where the scan starts (default HEAD)")
    String commit;

    @Option(names = "--workflow", paramLabel = "FILE",
            description = "workflow file, e.g. .github/workflows/ci.yml (a bare name is looked up there); default: the "
                    + "workflows at the commit, test- and CI-named first, the first whose job runs tests (said on stderr)")
    String workflow;

    @Option(names = "--fix", paramLabel = "COMMIT",
            description = "write a task from this fix commit: workspace = its parent, hidden tests = the test files "
                    + "it adds or changes, failToPass/passToPass from really running the suite before and after, "
                    + "reference.patch = its source diff. -o names the task folder")
    String fix;

    @Option(names = "--fixes", paramLabel = "N",
            description = "write N tasks from the history's fix commits: commits that change source and tests are tried "
                    + "newest first (-o DIR/<short id>/) until N became tasks, --tries were made or --scan commits were "
                    + "looked at; prints a table of every try")
    Integer fixes;

    @Option(names = "--tries", paramLabel = "M",
            description = "with --fixes: how many candidate commits to try at most, each four runs of the suite (default: 3 x N)")
    Integer tries;

    @Option(names = "--job", paramLabel = "NAME", description = "job id or name (default: the first job that runs tests)")
    String job;

    @Option(names = "--matrix", split = ",", paramLabel = "KEY=VALUE",
            description = "matrix values to choose a combination (default: the first that runs on Linux)")
    Map<String, String> matrix = new LinkedHashMap<>();

    @Option(names = "--test-step", paramLabel = "NAME",
            description = "the step(s) that run the tests, by name, id or number, comma-separated (default: detected)")
    String testStep;

    @Option(names = "--baseline",
            description = "run the derived environment twice at the commit with a no-op agent (crucible run: setup, the agent's "
                    + "box, the grading sandbox) and record every test: those passing both times become passToPass, those failing "
                    + "there (network, drift) or flaking are excluded with their reason (excludedTests), so a no-op agent reaches "
                    + "reward 1; exit 1 when the environment is unusable there, saying why")
    boolean baseline;

    @Option(names = "--setup-timeout", paramLabel = "SECONDS",
            description = "with --baseline: each baseline run's setup stops after this long and the outcome says so (default: the "
                    + "manifest's spec.setup.timeoutSeconds; with --repos: 40%% of --repo-timeout)")
    Long setupTimeout;

    @Option(names = "--grading-timeout", paramLabel = "SECONDS",
            description = "with --baseline: each baseline run's grading stops after this long and the outcome says so (default: the "
                    + "manifest's spec.verifier.timeoutSeconds; with --repos: 25%% of --repo-timeout)")
    Long gradingTimeout;

    @Option(names = "--run-producing-steps",
            description = "with --workflow: when a matrix or a needed job's output is computed by a step (fromJSON(needs.J.outputs.O))"
                    + " that writes no literal, run that step with bash in an export of the commit (120 s) to read it. It is the"
                    + " repository's code, run unboxed as you: off by default (the project's declared versions are used instead)")
    boolean runProducingSteps;

    @Option(names = "--report", paramLabel = "FILE", description = "also write the step report as JSON to FILE")
    Path report;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE",
            description = "write the manifest to FILE instead of stdout (with --fix/--fixes: the task folder, default "
                    + "crucible-tasks/<repo>)")
    Path output;

    @Option(names = "--scan", paramLabel = "N", defaultValue = "500",
            description = "with --fixes: how many commits to look at, at most (default: ${DEFAULT-VALUE})")
    int scan;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        if ((repo == null) == (repos == null)) {
            err.println("crucible derive: give --repo PATH or --repos LIST (one of them)");
            return EXIT_ERROR;
        }
        if ((setupTimeout != null && setupTimeout < 1) || (gradingTimeout != null && gradingTimeout < 1)) {
            err.println("crucible derive: --setup-timeout and --grading-timeout must be at least 1 (seconds)");
            return EXIT_ERROR;
        }
        if (repos != null) {
            return new RepoBatch(commit == null ? "HEAD" : commit, baseline, parallel, repoTimeout,
                    output == null ? Path.of("crucible-derived") : output, spec.commandLine().getOut(), err)
                    .withPhaseLimits(PhaseLimits.forBatch(repoTimeout, setupTimeout, gradingTimeout)).run(repos);
        }
        if (!Files.isDirectory(repo)) {
            err.println("crucible derive: --repo " + repo + ": no such directory");
            return EXIT_ERROR;
        }
        // the default matrix cell: the newest stable one whose toolchain this machine has (crucible run matches it here)
        dev.crucible.derive.ToolchainAvailability.use((language, version) -> dev.crucible.verifier.toolchain.ToolchainResolver.available(
                language, version, dev.crucible.verifier.toolchain.InstalledToolchains.machine()));
        dev.crucible.derive.ToolchainAvailability.useThisMachinesPackages();
        if (fix != null || fixes != null) {
            return new FixCommands(repo, workflow == null ? null : workflowPath(), job, spec).run(fix, fixes, commit,
                    output, scan, tries);
        }
        if (commit == null) {
            err.println("crucible derive: --commit: required (unless --fix or --fixes is given)");
            return EXIT_ERROR;
        }
        Derivation d;
        try {
            if (workflow != null) {
                // a step computing a fromJSON matrix runs only when asked: it is the repository's code, unboxed (ProducingSteps)
                d = (runProducingSteps ? WorkflowDeriver.runningRepositorySteps() : new WorkflowDeriver())
                        .derive(repo, commit, workflowPath(), job, matrix, testStep);
            } else {
                // none named: the workflows at the commit, test- and CI-named first; the first whose job runs tests
                d = dev.crucible.derive.WorkflowFinder.derive(repo, commit, job, matrix, testStep);
                err.println("crucible derive: no --workflow given; using " + d.workflowPath()
                        + " (the first workflow at the commit whose job runs tests)");
            }
        } catch (DerivationException e) {
            err.println("crucible derive: " + e.getMessage());
            return EXIT_ERROR;
        }
        String manifestText = d.manifestYaml();
        String reportText = d.reportJson();
        List<Path> scratch = new ArrayList<>();
        try {
            return write(d, manifestText, reportText, err, scratch);
        } finally {
            for (Path p : scratch) { // after the verdict is written and said: a batch that stops this derive now has it
                err.println("crucible derive: baseline: deleting the scratch " + p);
                err.flush();
                try {
                    RunResults.delete(p);
                } catch (IOException e) {
                    err.println("crucible derive: could not delete the scratch " + p + ": " + e.getMessage());
                }
            }
        }
    }

    private int write(Derivation d, String manifestText, String reportText, PrintWriter err, List<Path> scratch) {
        Baseline.Result base = null;
        if (baseline) {
            try {
                base = BaselineRun.run(new PhaseLimits(setupTimeout, gradingTimeout).apply(manifestText), err, keepFolder(), scratch);
                manifestText = BaselineManifest.with(manifestText, base);
                reportText = BaselineRun.report(reportText, base);
            } catch (IOException | RuntimeException e) {
                err.println("crucible derive: --baseline: " + e.getMessage());
                return EXIT_ERROR;
            }
        }
        try {
            OutputFiles files = new OutputFiles();
            if (output != null) {
                files.add(output, manifestText);
            }
            if (report != null) {
                files.add(report, reportText);
            }
            files.commit();
        } catch (IOException e) {
            err.println("crucible derive: cannot write output: " + e.getMessage());
            return EXIT_ERROR;
        }
        if (output == null) {
            spec.commandLine().getOut().print(manifestText);
            spec.commandLine().getOut().flush();
        } else {
            err.println("crucible derive: wrote " + output + " (RLEnvironment " + d.name() + ", job '" + d.jobId()
                    + "', verifier: " + oneLine(d.verifier().command()) + ")");
        }
        if (base != null && !base.usable()) {
            err.println("crucible derive: unusable at " + commit + ": " + base.unusable());
            return 1;
        }
        return 0;
    }

    /** Where the baseline's results stay: beside {@code -o} (or {@code --report}); null without either. */
    private Path keepFolder() {
        Path beside = output != null ? output : report;
        return beside == null ? null : RunResults.besides(beside, "baseline");
    }

    /** The workflow as a path inside the repository, whichever way the user wrote it. */
    private String workflowPath() {
        Path given = Path.of(workflow);
        Path root = repo.toAbsolutePath().normalize();
        if (given.isAbsolute() && given.normalize().startsWith(root)) {
            return root.relativize(given.normalize()).toString();
        }
        if (!workflow.contains("/") && !Files.exists(root.resolve(workflow))) {
            return ".github/workflows/" + workflow;
        }
        return workflow.startsWith("./") ? workflow.substring(2) : workflow;
    }

    private static String oneLine(String command) {
        String first = command.lines().filter(l -> !l.isBlank() && !l.startsWith("#") && !l.equals("set -e"))
                .findFirst().orElse(command);
        return command.lines().count() > 1 ? first + " ..." : first;
    }
}
