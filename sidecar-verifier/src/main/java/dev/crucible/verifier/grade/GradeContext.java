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
 */
public record GradeContext(Path root, Path resultsDir, Path envDir, Executor executor, String python,
                           Map<String, String> env, LongConsumer onStart) {

    public ExecResult shell(String command, Duration timeout, String stdin) {
        ExecRequest req = new ExecRequest(List.of("/bin/sh", "-c", command), root, env, true, timeout,
                ExecRequest.DEFAULT_MAX_OUTPUT, stdin, false);
        return executor.run(req, onStart);
    }

    public ExecResult argv(List<String> argv, Duration timeout) {
        ExecRequest req = new ExecRequest(argv, root, env, true, timeout, ExecRequest.DEFAULT_MAX_OUTPUT, null, false);
        return executor.run(req, onStart);
    }

    /** The build step, when there is one; a failing build is CodeRL's "does not compile" (-1). */
    public ExecResult build(String buildCommand, Duration timeout) {
        return buildCommand == null || buildCommand.isBlank() ? null : shell(buildCommand, timeout, null);
    }
}
