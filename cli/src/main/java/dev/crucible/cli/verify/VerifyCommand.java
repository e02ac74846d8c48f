package dev.crucible.cli.verify;

import dev.crucible.cli.run.SignalCleanup;
import dev.crucible.verifier.Environment;
import dev.crucible.verifier.Episode;
import dev.crucible.verifier.EpisodeOptions;
import dev.crucible.verifier.Json;
import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.config.ConfigException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code crucible verify -f ENV.yaml --workspace DIR}: grades a finished workspace with the sidecar's
 * code, comparing protected files with the environment's own workspace (its pristine copy), and
 * prints the same JSON as /v1/verify. Exit 0 when grading ran (whatever the reward), 2 on bad input.
 */
@Command(name = "verify", mixinStandardHelpOptions = true, subcommands = VerifyBenchCommand.class,
        description = "Grade a finished workspace post hoc and print the /v1/verify JSON.")
public final class VerifyCommand implements Callable<Integer> {
    public static final int BAD_INPUT = 2;

    @Spec
    CommandSpec spec;

    @Option(names = {"-f", "--file"}, paramLabel = "ENV.yaml", description = "RLEnvironment manifest")
    Path file;

    @Option(names = "--workspace", paramLabel = "DIR", description = "the finished workspace to grade")
    Path workspace;

    @Option(names = "--pretty", description = "indent the JSON")
    boolean pretty;

    @Option(names = "--find-offline", description = {"validation run: grade the environment's own workspace (the task commit; --workspace",
            "may name another) without network and list the tests that fail only for want of one, with the line that says so"})
    boolean findOffline;

    @Option(names = "--write", description = "with --find-offline: add them to the manifest as spec.verifier.excludedTests")
    boolean write;

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        if (file == null) return bad(err, "-f ENV.yaml: required (the RLEnvironment manifest)");
        if (write && !findOffline) return bad(err, "--write: only with --find-offline");
        if (findOffline) return FindOffline.run(file, workspace, write, spec.commandLine().getOut(), err);
        if (workspace == null) return bad(err, "--workspace DIR: required (the finished workspace to grade)");
        if (!Files.isDirectory(workspace)) return bad(err, "--workspace " + workspace + ": no such directory");
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        // a signal: the hook stops and kills the boxes, lets the grading thread end (it removes its own state folder), then
        // removes whatever folders are left; the grading thread goes on while a hook runs, so the order matters
        java.util.concurrent.atomic.AtomicBoolean stopping = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.CountDownLatch ended = new java.util.concurrent.CountDownLatch(1);
        Thread hook = new Thread(() -> {
            stopping.set(true);
            SignalCleanup.stopBoxes();
            try {
                ended.await(10, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            err.println("crucible verify: stopped by a signal while grading; nothing graded; removed " + SignalCleanup.removeOwn(tmp).size()
                    + " folder(s) it made");
            err.flush();
        }, "crucible-verify-stop");
        Path state = null;
        try {
            Environment env = Environment.load(file);
            state = SignalCleanup.stateFolder(tmp);
            Runtime.getRuntime().addShutdownHook(hook);
            // graded code runs in the shared sandbox, as in crucible run
            VerifyReport report = Episode.gradePostHoc(env, workspace, EpisodeOptions.defaults().withStateDir(state).withGradingExecutor(
                    new dev.crucible.verifier.sandbox.GradingSandbox(dev.crucible.verifier.sandbox.BoxLimits.defaults())));
            if (stopping.get()) return 143; // its grade broke off: no report
            spec.commandLine().getOut().println(Json.write(report, pretty));
            spec.commandLine().getOut().flush();
            return 0;
        } catch (ConfigException e) {
            return bad(err, e.getMessage());
        } catch (java.io.IOException e) {
            return bad(err, "cannot make a state folder in " + tmp + ": " + e.getMessage());
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException | IllegalArgumentException shuttingDownOrNeverAdded) {
                // the hook runs (or never was added)
            }
            if (state != null) dev.crucible.verifier.pristine.TreeCopy.delete(state);
            ended.countDown();
        }
    }

    static int bad(PrintWriter err, String message) {
        err.println("crucible verify: " + message);
        err.flush();
        return BAD_INPUT;
    }
}
