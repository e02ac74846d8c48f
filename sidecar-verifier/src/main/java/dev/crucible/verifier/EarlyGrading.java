package dev.crucible.verifier;

import dev.crucible.verifier.pristine.TreeCopy;
import dev.crucible.verifier.exec.ExecRequest;
import dev.crucible.verifier.exec.Executor;
import dev.crucible.verifier.grade.PytestCommand;
import dev.crucible.verifier.grade.PytestReporter;
import dev.crucible.verifier.grade.ResultChannel;
import dev.crucible.verifier.sandbox.GradingSandbox;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The grading interpreter of one attempt, started at reset in its box while the agent works: the box,
 * Python and pytest's imports are then off the time between the agent's end and its reward. It gets the
 * exact request grading will make (same folders, environment, result channel); grading's pytest run
 * takes it over ({@link GradingSandbox#prestart}), anything else runs as before. Only what the grader
 * wrote runs in it before grading: the tree is copied into its (bound, still empty) folder after every
 * agent process is dead.
 */
final class EarlyGrading {
    private final GradingSandbox sandbox;
    private final Path gradeRoot;
    private final AtomicReference<ResultChannel> channel;

    private EarlyGrading(GradingSandbox sandbox, Path gradeRoot, ResultChannel channel) {
        this.sandbox = sandbox;
        this.gradeRoot = gradeRoot;
        this.channel = new AtomicReference<>(channel);
    }

    /**
     * Starts it for a pytest command the grader's bootstrap runs, when grading is boxed; empty otherwise
     * (other runners, no interpreter, or the box could not start: grading then starts everything itself).
     */
    static Optional<EarlyGrading> start(Environment env, Executor grader, String python, Path gradeRoot, Path results, Path support) {
        if (!(grader instanceof GradingSandbox sandbox) || !sandbox.prestarts() || python == null) return Optional.empty();
        var v = env.verifier();
        String framework = v.framework();
        if (!v.typeOrDefault().equals("test-suite") || (framework != null && !framework.equals("pytest"))
                || PytestCommand.pytestArgs(v.command()).isEmpty()) return Optional.empty();
        // an editable install made tree-relative resolves its folder from the working directory at start-up: an
        // interpreter started now, in the still empty tree, would import without the package (cachetools' old commits)
        if (env.execution().map(dev.crucible.verifier.toolchain.ExecEnvironments::hasTreeRelativeInstalls).orElse(false)) return Optional.empty();
        ResultChannel ch;
        try {
            TreeCopy.delete(gradeRoot);
            TreeCopy.delete(results);
            Files.createDirectories(results.resolve("home"));
            Files.createDirectories(dev.crucible.verifier.exec.SharedTmp.of(results)); // bound when the box opens
            Files.createDirectories(gradeRoot);
            Files.createDirectories(support);
            ch = ResultChannel.open(results);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
        Map<String, String> genv = new LinkedHashMap<>(CommandEnvironments.grading(results, python, env, true)); // a GradingSandbox's box
        genv.put(PytestReporter.NONCE_VAR, ch.nonce());
        ExecRequest req = new ExecRequest(PytestCommand.argv(python, support), gradeRoot, genv, true,
                Duration.ofSeconds(v.timeoutOrDefault()), ExecRequest.DEFAULT_MAX_OUTPUT, null, false, ch.path());
        if (!sandbox.prestart(req)) {
            ch.finish(100);
            return Optional.empty();
        }
        return Optional.of(new EarlyGrading(sandbox, gradeRoot, ch));
    }

    Path gradeRoot() { return gradeRoot; }

    /** The result channel for grading's context: the first pytest run takes it. */
    AtomicReference<ResultChannel> channel() { return channel; }

    /** Ends the interpreter if grading did not take it, and releases an untaken channel. */
    void end() {
        sandbox.discard(gradeRoot);
        ResultChannel c = channel.getAndSet(null);
        if (c != null) c.finish(100);
    }
}
