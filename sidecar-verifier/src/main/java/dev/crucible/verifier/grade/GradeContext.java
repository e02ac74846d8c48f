package dev.crucible.verifier.grade;

import dev.crucible.verifier.exec.ExecRequest;
import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.exec.Executor;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.LongConsumer;

/**
 * Where and how grading commands run: {@code root} is the grading tree (never the workspace),
 * {@code resultsDir} is where reports go (outside anything the agent can write), {@code env} is the
 * whole environment the commands get (nothing inherited), {@code python} the interpreter resolved at reset.
 * {@code supportDir} holds grader-owned files the command reads (the pytest reporter; read-only in the
 * grading sandbox); {@code graderFiles} are the grading tree's files that are the grader's own.
 * {@code channel} holds the result channel opened ahead for a grading interpreter started early (null: none);
 * the first pytest run takes it. {@code oracleConfig} (null: none) is the isolated oracle's configuration for this
 * grading: the hardened pytest bootstrap run through {@link #argv} then loads the oracle (see {@link IsolatedTestSuite}).
 * {@code agentRoot} (null: unknown) is where the agent's box showed the workspace the tree was built from: the oracle's
 * workers see their copy of the tree there, as the agent's code saw itself (blind round 11, x41).
 * {@code taskChanges} (null: unknown) are the tree's Python sources that differ from the task's tree, for the reporter
 * ({@link dev.crucible.verifier.pristine.TaskSources}).
 */
public record GradeContext(Path root, Path resultsDir, Path envDir, Executor executor, String python,
                           Map<String, String> env, LongConsumer onStart, Path supportDir, Map<String, GraderFiles.Entry> graderFiles,
                           java.util.concurrent.atomic.AtomicReference<ResultChannel> channel, Path oracleConfig,
                           Path agentRoot, dev.crucible.verifier.pristine.TaskSources.Changes taskChanges) {

    public GradeContext(Path root, Path resultsDir, Path envDir, Executor executor, String python,
                        Map<String, String> env, LongConsumer onStart, Path supportDir, Map<String, GraderFiles.Entry> graderFiles,
                        java.util.concurrent.atomic.AtomicReference<ResultChannel> channel) {
        this(root, resultsDir, envDir, executor, python, env, onStart, supportDir, graderFiles, channel, null, null, null);
    }

    public GradeContext {
        if (supportDir == null) supportDir = resultsDir.resolveSibling(resultsDir.getFileName() + "-support");
        graderFiles = graderFiles == null ? Map.of() : Map.copyOf(graderFiles);
    }

    public GradeContext(Path root, Path resultsDir, Path envDir, Executor executor, String python,
                        Map<String, String> env, LongConsumer onStart) {
        this(root, resultsDir, envDir, executor, python, env, onStart, null, null, null);
    }

    public GradeContext withEnv(Map<String, String> newEnv) {
        return new GradeContext(root, resultsDir, envDir, executor, python, newEnv, onStart, supportDir, graderFiles, channel, oracleConfig, agentRoot, taskChanges);
    }

    /** This context with the isolated oracle's configuration (null: graded in-process). */
    public GradeContext withOracle(Path config) {
        return new GradeContext(root, resultsDir, envDir, executor, python, env, onStart, supportDir, graderFiles, channel, config, agentRoot, taskChanges);
    }

    /** This context with the path where the agent's box showed the workspace (null: unknown). */
    public GradeContext withAgentRoot(Path path) {
        return new GradeContext(root, resultsDir, envDir, executor, python, env, onStart, supportDir, graderFiles, channel, oracleConfig,
                path == null ? null : path.toAbsolutePath().normalize(), taskChanges);
    }

    /** This context with the tree's Python sources that differ from the task's tree (null: unknown). */
    public GradeContext withTaskChanges(dev.crucible.verifier.pristine.TaskSources.Changes changes) {
        return new GradeContext(root, resultsDir, envDir, executor, python, env, onStart, supportDir, graderFiles, channel, oracleConfig, agentRoot, changes);
    }

    public ExecResult shell(String command, Duration timeout, String stdin) {
        return shell(command, timeout, stdin, null);
    }

    /** A shell command; {@code channel} (may be null) becomes its fd 3. */
    public ExecResult shell(String command, Duration timeout, String stdin, Path channel) {
        return executor.run(shellRequest(command, timeout).withStdin(stdin, false).withResultChannel(channel), onStart);
    }

    /** The request {@link #shell} runs: the command in the grading tree, with the grading environment only. */
    public ExecRequest shellRequest(String command, Duration timeout) {
        return new ExecRequest(dev.crucible.verifier.exec.Shell.argv(command), root, env, true, timeout,
                ExecRequest.DEFAULT_MAX_OUTPUT, null, false, null);
    }

    public ExecResult argv(List<String> argv, Duration timeout) {
        return argv(argv, timeout, null);
    }

    /** A command line; {@code channel} (may be null) becomes its fd 3. */
    public ExecResult argv(List<String> argv, Duration timeout, Path channel) {
        return argv(argv, timeout, channel, null);
    }

    /** As {@link #argv(List, Duration, Path)} with {@code stdin} (may be null) as its input. */
    public ExecResult argv(List<String> argv, Duration timeout, Path channel, String stdin) {
        if (oracleConfig != null && stdin != null && PytestCommand.isBootstrap(argv)) stdin = PytestCommand.withOracle(stdin, oracleConfig);
        ExecRequest req = new ExecRequest(argv, root, env, true, timeout, ExecRequest.DEFAULT_MAX_OUTPUT, stdin, false, channel);
        return executor.run(req, onStart);
    }

    /** The channel opened ahead for this grading, else a fresh one in the results folder. */
    public ResultChannel openChannel() {
        ResultChannel c = channel == null ? null : channel.getAndSet(null);
        return c != null ? c : ResultChannel.open(resultsDir);
    }

    /** The build step, when there is one; a failing build is CodeRL's "does not compile" (-1). */
    public ExecResult build(String buildCommand, Duration timeout) {
        return buildCommand == null || buildCommand.isBlank() ? null : shell(buildCommand, timeout, null);
    }
}
