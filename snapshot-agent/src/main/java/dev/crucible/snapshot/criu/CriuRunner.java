package dev.crucible.snapshot.criu;

import dev.crucible.snapshot.target.ProcessRef;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Runs criu through ProcessBuilder. Its stdout/stderr go to a file, never to a pipe: if the
 * agent dies mid-dump, a pipe would break and SIGPIPE would kill CRIU while its parasite code
 * sits inside the target; with a file, CRIU finishes on its own and releases the tasks.
 */
public final class CriuRunner {

    private final CriuBinary criu;

    public CriuRunner(CriuBinary criu) {
        this.criu = criu;
    }

    public CriuBinary binary() {
        return criu;
    }

    /**
     * @param action   pre-dump, dump, restore …
     * @param args     everything after the action (images dir, tree, options)
     * @param logDir   CRIU's --work-dir: log and stats go here, not into the images
     * @param started  told CRIU's process as soon as it runs (the journal records it)
     */
    public CriuResult run(String action, List<String> args, Path logDir, String logName, Duration timeout,
                          Consumer<ProcessRef> started) {
        List<String> cmd = new ArrayList<>();
        cmd.add(criu.path().toString());
        cmd.add(action);
        cmd.addAll(args);
        cmd.addAll(List.of("--work-dir", logDir.toString(), "--log-file", logName, "-v4"));
        Path log = logDir.resolve(logName);
        Path out = logDir.resolve(logName + ".out");
        long t0 = System.nanoTime();
        Process p;
        try {
            p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        } catch (IOException e) {
            throw new CriuException("cannot start " + criu.path() + ": " + e.getMessage());
        }
        if (started != null) {
            try {
                started.accept(ProcessRef.of(p.pid()));
            } catch (RuntimeException ignored) {
                // criu already exited; its status below tells the story
            }
        }
        try {
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
                throw new CriuException(action, "timed out after " + timeout.toMillis() + " ms", CriuLog.errors(log),
                        log.toString());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CriuException("interrupted while waiting for criu " + action);
        }
        long dt = System.nanoTime() - t0;
        if (p.exitValue() != 0) {
            List<String> errors = CriuLog.errors(log);
            if (errors.isEmpty()) {
                errors = CriuLog.errors(out);
            }
            throw new CriuException(action, "exited with status " + p.exitValue(), errors, log.toString());
        }
        return new CriuResult(action, dt, log);
    }
}
