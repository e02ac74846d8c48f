package dev.crucible.cli.run;

import dev.crucible.verifier.exec.ExecRequest;
import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.exec.Executor;
import dev.crucible.verifier.exec.LocalExecutor;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongConsumer;

/**
 * The episode's executor in interactive mode: commands that run in the workspace (the trainer's
 * bash steps, the interpreter probe) go through the attempt's sandbox (the same box as an embedded
 * agent's); grading has its own executor (a fresh grading box per command).
 */
final class SandboxedExecutor implements Executor {
    private final LocalExecutor inner = new LocalExecutor();
    private final Sandbox sandbox;
    private final Path workspace;

    SandboxedExecutor(Sandbox sandbox, Path workspace) {
        this.sandbox = sandbox;
        this.workspace = workspace;
    }

    @Override
    public ExecResult run(ExecRequest req, LongConsumer onStart) {
        if (!req.cwd().toAbsolutePath().normalize().startsWith(workspace)) return inner.run(req, onStart);
        long t0 = System.nanoTime();
        try {
            sandbox.prepare(); // write_file and edit ran as this user: hand their files to the box
        } catch (IOException e) {
            return new ExecResult(126, "", "could not prepare the workspace for the sandbox: " + e.getMessage() + "\n", false, false, 0, -1);
        }
        t0 = dev.crucible.verifier.exec.GradingPhases.since("box_prepare", t0);
        Map<String, String> env = new LinkedHashMap<>(req.env());
        env.put("HOME", sandbox.home());
        ExecRequest wrapped = new ExecRequest(sandbox.wrap(req.argv(), req.cwd(), env), req.cwd(), env, req.clearEnv(),
                req.timeout(), req.maxOutputBytes(), req.stdin(), req.mergeStderr());
        dev.crucible.verifier.exec.GradingPhases.since("box_wrap", t0);
        return inner.run(wrapped, onStart, sandbox::nothingLeft);
    }
}
