package dev.crucible.verifier.exec;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;

/** Runs commands as child processes of this JVM, each in its own session so its tree can be killed. */
public final class LocalExecutor implements Executor {
    /** Environment variables kept when a request clears the environment. */
    private static final List<String> KEEP = List.of("LANG", "LC_ALL", "TZ");
    private static final boolean HAS_SETSID = Files.isExecutable(Path.of("/usr/bin/setsid"));
    /** Opens the grader's result channel as fd 3, then becomes the command (which may be a sandbox wrapper). */
    static final String OPEN_CHANNEL = "exec 3>\"$0\" && exec \"$@\"";

    @Override
    public ExecResult run(ExecRequest req, LongConsumer onStart) {
        return run(req, onStart, null);
    }

    /**
     * As {@link #run(ExecRequest, LongConsumer)}; {@code nothingLeft} (may be null), asked once the command has ended
     * by itself, says whether its sandbox can prove that no process of it is left (its cgroup is empty): the session
     * sweep, a walk of all of /proc, then has nothing to find and is skipped. Asked after a timeout, never: the sweep runs.
     */
    public ExecResult run(ExecRequest req, LongConsumer onStart, java.util.function.BooleanSupplier nothingLeft) {
        Started s = start(req, onStart);
        return s.finish(req.stdin(), req.timeout(), nothingLeft);
    }

    /**
     * As {@link #run(ExecRequest, LongConsumer)}, with the command's output (the kept part, up to the request's bound)
     * also written to {@code tee} as it comes: setup's log shows where a setup stopped at its limit was.
     */
    public ExecResult runTeeing(ExecRequest req, LongConsumer onStart, OutputStream tee) {
        return start(req, onStart, tee).finish(req.stdin(), req.timeout(), null);
    }

    /**
     * Starts the request's command now and returns before it ends: its input stays open until
     * {@link Started#finish} writes it, and its timeout counts from then. Grading starts its interpreter
     * this way while the agent still works ({@link dev.crucible.verifier.sandbox.GradingSandbox#prestart}).
     */
    public Started start(ExecRequest req, LongConsumer onStart) {
        return start(req, onStart, null);
    }

    private Started start(ExecRequest req, LongConsumer onStart, OutputStream tee) {
        List<String> argv = new ArrayList<>();
        if (HAS_SETSID) argv.add("/usr/bin/setsid");
        if (req.resultChannel() != null) argv.addAll(List.of("/bin/sh", "-c", OPEN_CHANNEL, req.resultChannel().toString()));
        argv.addAll(req.argv());
        ProcessBuilder pb = new ProcessBuilder(argv).directory(req.cwd().toFile());
        Map<String, String> env = pb.environment();
        if (req.clearEnv()) {
            Map<String, String> keep = new java.util.HashMap<>();
            for (String k : KEEP) if (env.containsKey(k)) keep.put(k, env.get(k));
            env.clear();
            env.putAll(keep);
        }
        env.putAll(req.env());
        pb.redirectErrorStream(req.mergeStderr());
        Process p;
        long t0 = System.nanoTime();
        try {
            p = pb.start();
            dev.crucible.verifier.exec.GradingPhases.since("exec_spawn", t0);
        } catch (IOException e) {
            return new Started(null, Map.of(), null, null, null, null, "cannot start " + req.argv().get(0) + ": " + e.getMessage());
        }
        // its start time now, while the JVM has not reaped it: killed later by pid and start time, never by number alone
        Map<Long, Long> started = ProcessTreeKiller.startsOf(List.of(p.pid()));
        onStart.accept(p.pid());
        BoundedOutput out = new BoundedOutput(p.getInputStream(), req.maxOutputBytes(), tee);
        BoundedOutput err = new BoundedOutput(p.getErrorStream(), req.maxOutputBytes(), tee);
        return new Started(p, started, out, err, start(out, "exec-out-" + p.pid()), start(err, "exec-err-" + p.pid()), null);
    }

    /** A command {@link #start} launched: its input is written, and its end awaited, by {@link #finish}. */
    public static final class Started {
        private final Process p;
        /**
         * Its pid with its start time: once the JVM reaps it the pid is free, and a busy machine (pid_max 32768) hands it
         * to any process, whose session a kill by number would take too.
         */
        private final Map<Long, Long> started;
        private final BoundedOutput out;
        private final BoundedOutput err;
        private final Thread to;
        private final Thread te;
        private final String failure;

        private Started(Process p, Map<Long, Long> started, BoundedOutput out, BoundedOutput err, Thread to, Thread te, String failure) {
            this.p = p;
            this.started = started;
            this.out = out;
            this.err = err;
            this.to = to;
            this.te = te;
            this.failure = failure;
        }

        public long pid() { return p == null ? -1 : p.pid(); }

        public boolean isAlive() { return p != null && p.isAlive(); }

        /** Writes {@code stdin} (may be null) and closes it, waits up to {@code timeout}, then kills what is left. */
        public ExecResult finish(String stdin, Duration timeout) {
            return finish(stdin, timeout, null);
        }

        private ExecResult finish(String stdin, Duration timeout, java.util.function.BooleanSupplier nothingLeft) {
            if (p == null) return new ExecResult(127, "", failure, false, false, 0, -1);
            long start = System.nanoTime();
            feedStdin(p, stdin);
            boolean timedOut = false;
            try {
                if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    timedOut = true;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                timedOut = true;
            }
            long waited = dev.crucible.verifier.exec.GradingPhases.since("exec_wait", start);
            // Kill the whole session either way: a command that exits but leaves a background child
            // behind must not keep running (or keep our output pipes open).
            if (timedOut || nothingLeft == null || !nothingLeft.getAsBoolean()) ProcessTreeKiller.killStarted(started);
            waited = dev.crucible.verifier.exec.GradingPhases.since("exec_kill", waited);
            join(to);
            join(te);
            dev.crucible.verifier.exec.GradingPhases.since("exec_join", waited);
            long ms = (System.nanoTime() - start) / 1_000_000;
            int code = timedOut ? -1 : p.exitValue();
            return new ExecResult(code, out.text(), err.text(), out.truncated() || err.truncated(), timedOut, ms, p.pid());
        }

        /** Ends a started command that will not be needed (its session is killed). */
        public void kill() {
            if (p == null) return;
            ProcessTreeKiller.killStarted(started);
            try {
                p.getOutputStream().close();
            } catch (IOException ignored) {
                // already gone
            }
        }
    }

    private static void feedStdin(Process p, String stdin) {
        try (OutputStream os = p.getOutputStream()) {
            if (stdin != null && !stdin.isEmpty()) os.write(stdin.getBytes(StandardCharsets.UTF_8));
        } catch (IOException ignored) {
            // the program did not read its input: that is its business
        }
    }

    private static Thread start(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static void join(Thread t) {
        try {
            t.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
