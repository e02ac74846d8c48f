package dev.crucible.cli.run;

import dev.crucible.verifier.exec.ExecRequest;
import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.exec.Executor;
import dev.crucible.verifier.exec.GradingPhases;
import dev.crucible.verifier.exec.LocalExecutor;
import dev.crucible.verifier.sandbox.BoxSession;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongConsumer;

/**
 * The episode's executor in interactive mode: commands that run in the workspace (the trainer's
 * bash steps, the interpreter probe) go through the attempt's sandbox (the same box as an embedded
 * agent's); grading has its own executor (a fresh grading box per command).
 *
 * <p>With bubblewrap, the steps of an episode share one launch of that box ({@link BoxSession}): started at the
 * first step after a reset, ended by the kill that precedes each reset and grading, started anew when it ended or
 * when a read-only bind it holds no longer shows what a new box would. {@code CRUCIBLE_STEP_BOX=per-step} launches
 * a box per step as before (the benchmark's comparison); a session that cannot start falls back to that, never to
 * running outside a box.
 */
final class SandboxedExecutor implements Executor {
    static final boolean PER_STEP = "per-step".equals(System.getenv("CRUCIBLE_STEP_BOX"));
    private final LocalExecutor inner = new LocalExecutor();
    private final Sandbox sandbox;
    private final Path workspace;
    private BoxSession session;
    private String sessionProblem;

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
        t0 = GradingPhases.since("box_prepare", t0);
        Map<String, String> env = new LinkedHashMap<>(req.env());
        env.put("HOME", sandbox.home());
        ExecRequest boxed = req.withEnv(env, req.clearEnv());
        BoxSession s = session(env);
        GradingPhases.since("box_session", t0);
        if (s != null) return s.run(boxed, onStart);
        t0 = System.nanoTime();
        ExecRequest wrapped = boxed.withArgv(sandbox.wrap(req.argv(), req.cwd(), env));
        GradingPhases.since("box_wrap", t0);
        return inner.run(wrapped, onStart, sandbox::nothingLeft);
    }

    /** The episode's box, started when there is none or the one there is no longer current; null: per-step boxes. */
    private synchronized BoxSession session(Map<String, String> env) {
        if (PER_STEP || !(sandbox instanceof Bubblewrap bw) || sessionProblem != null) return null;
        if (session != null && session.current(env)) return session;
        if (session != null) session.close();
        long t0 = System.nanoTime();
        try {
            session = BoxSession.start(bw.box(), workspace, env);
            GradingPhases.since("box_session_start", t0);
        } catch (IOException e) {
            session = null;
            sessionProblem = e.getMessage(); // each step then launches its own box, as without a session
            System.err.println("crucible: steps run in a box each (" + sessionProblem + ")");
        }
        return session;
    }

    /** Before a reset and before grading: the episode's box ends with every process in it. */
    @Override
    public int killAgents(Collection<Long> roots) {
        synchronized (this) {
            if (session != null) session.close();
            session = null;
        }
        return Executor.super.killAgents(roots);
    }
}
