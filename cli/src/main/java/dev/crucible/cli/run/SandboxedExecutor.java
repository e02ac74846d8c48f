package dev.crucible.cli.run;

import dev.crucible.verifier.exec.ExecRequest;
import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.exec.Executor;
import dev.crucible.verifier.exec.LocalExecutor;
import java.nio.file.Path;
import java.util.function.LongConsumer;

/**
 * The episode's executor in interactive mode: commands that run in the workspace (the trainer's
 * bash steps, the interpreter probe) go through the sandbox; grading runs in the episode's own
 * tree outside the workspace and stays unconfined, since it must read the pristine copy the
 * sandbox hides.
 */
final class SandboxedExecutor implements Executor {
    private final Executor inner = new LocalExecutor();
    private final Sandbox sandbox;
    private final Path workspace;

    SandboxedExecutor(Sandbox sandbox, Path workspace) {
        this.sandbox = sandbox;
        this.workspace = workspace;
    }

    @Override
    public ExecResult run(ExecRequest req, LongConsumer onStart) {
        if (!req.cwd().toAbsolutePath().normalize().startsWith(workspace)) return inner.run(req, onStart);
        ExecRequest wrapped = new ExecRequest(sandbox.wrap(req.argv(), req.cwd()), req.cwd(), homed(req), req.clearEnv(),
                req.timeout(), req.maxOutputBytes(), req.stdin(), req.mergeStderr());
        return inner.run(wrapped, onStart);
    }

    private java.util.Map<String, String> homed(ExecRequest req) {
        java.util.Map<String, String> env = new java.util.LinkedHashMap<>(req.env());
        env.put("HOME", sandbox.home());
        return env;
    }
}
