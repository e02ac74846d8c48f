package dev.crucible.verifier.exec;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
        long start = System.nanoTime();
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            return new ExecResult(127, "", "cannot start " + req.argv().get(0) + ": " + e.getMessage(), false, false, 0, -1);
        }
        onStart.accept(p.pid());
        BoundedOutput out = new BoundedOutput(p.getInputStream(), req.maxOutputBytes());
        BoundedOutput err = new BoundedOutput(p.getErrorStream(), req.maxOutputBytes());
        Thread to = start(out, "exec-out-" + p.pid());
        Thread te = start(err, "exec-err-" + p.pid());
        feedStdin(p, req.stdin());
        boolean timedOut = false;
        try {
            if (!p.waitFor(req.timeout().toMillis(), TimeUnit.MILLISECONDS)) {
                timedOut = true;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            timedOut = true;
        }
        // Kill the whole session either way: a command that exits but leaves a background child
        // behind must not keep running (or keep our output pipes open).
        ProcessTreeKiller.killAll(List.of(p.pid()));
        join(to);
        join(te);
        long ms = (System.nanoTime() - start) / 1_000_000;
        int code = timedOut ? -1 : p.exitValue();
        return new ExecResult(code, out.text(), err.text(), out.truncated() || err.truncated(), timedOut, ms, p.pid());
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
