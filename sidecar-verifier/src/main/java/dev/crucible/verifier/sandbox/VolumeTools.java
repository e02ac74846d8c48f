package dev.crucible.verifier.sandbox;

import dev.crucible.verifier.exec.ProcessTreeKiller;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The system tools run for a volume (mkfs, mount, a compaction's e2fsck), each within a bound that holds however the tool
 * behaves: its output is read on a thread of its own (read to the end before the wait, as before, an e2fsck that never
 * ended held its caller for good, whatever the wait's bound), and past the bound its tree is killed. {@link #stop} kills the
 * ones still running and starts no more: a run that is stopped or timed out does not wait on its volume's compaction. Each
 * runs in a session of its own, recorded with its start time, so the kill reaches its children and never a process that
 * reused its pid.
 */
final class VolumeTools {
    /** Output kept for the error message; the rest is read and dropped, so a chatty tool never blocks on a full pipe. */
    private static final int OUTPUT_CAP = 16 << 10;
    private static final Path SETSID = Path.of("/usr/bin/setsid");

    private final Set<Map<Long, Long>> running = ConcurrentHashMap.newKeySet();
    private volatile boolean stopped;

    /** Null when {@code argv} exited 0 within {@code bound}, else what it said or why it did not finish. */
    String run(List<String> argv, Duration bound) {
        return exec(argv, bound).problem();
    }

    /** What {@code argv} printed when it exited 0 within {@code bound} (its first 16 KiB, stripped), else null. */
    String output(List<String> argv, Duration bound) {
        Ran r = exec(argv, bound);
        return r.problem() == null ? r.said() : null;
    }

    /** {@code problem}: null when the tool exited 0 in time; {@code said}: its output. */
    private record Ran(String problem, String said) {}

    private Ran exec(List<String> argv, Duration bound) {
        if (stopped) return new Ran(String.join(" ", argv) + ": not started, the volume is closing", "");
        List<String> cmd = new ArrayList<>();
        if (Files.isExecutable(SETSID)) cmd.add(SETSID.toString());
        cmd.addAll(argv);
        Process p;
        try {
            p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        } catch (IOException e) {
            return new Ran("cannot run " + argv.get(0) + ": " + e.getMessage(), "");
        }
        Map<Long, Long> root = ProcessTreeKiller.startsOf(List.of(p.pid()));
        running.add(root);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Thread drain = new Thread(() -> drain(p.getInputStream(), out), "crucible-volume-tool");
        drain.setDaemon(true);
        drain.start();
        try {
            if (stopped) ProcessTreeKiller.killStarted(root); // stop() ran between the check above and the record
            if (!p.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS)) {
                ProcessTreeKiller.killStarted(root);
                p.waitFor(5, TimeUnit.SECONDS);
                return new Ran(String.join(" ", argv) + ": did not finish in " + bound.toSeconds() + " s; stopped", "");
            }
            drain.join(2000); // its output ends with it, unless a child it left holds the pipe: then without the rest
            if (stopped && p.exitValue() != 0) return new Ran(String.join(" ", argv) + ": stopped, the volume is closing", "");
            String said;
            synchronized (out) {
                said = out.toString(StandardCharsets.UTF_8).strip();
            }
            return new Ran(p.exitValue() == 0 ? null : argv.get(0) + " exited " + p.exitValue() + (said.isEmpty() ? "" : ": " + said), said);
        } catch (InterruptedException e) {
            ProcessTreeKiller.killStarted(root);
            Thread.currentThread().interrupt();
            return new Ran("interrupted while running " + argv.get(0), "");
        } finally {
            running.remove(root);
        }
    }

    /** Kills the tools still running (with their trees) and refuses new ones from now on. */
    void stop() {
        stopped = true;
        for (Map<Long, Long> root : List.copyOf(running)) ProcessTreeKiller.killStarted(root);
    }

    boolean stopped() { return stopped; }

    private static void drain(InputStream in, ByteArrayOutputStream out) {
        byte[] buf = new byte[8192];
        try (in) {
            for (int n; (n = in.read(buf)) > 0; ) {
                synchronized (out) {
                    if (out.size() < OUTPUT_CAP) out.write(buf, 0, Math.min(n, OUTPUT_CAP - out.size()));
                }
            }
        } catch (IOException closed) {
            // the tool ended, or was killed
        }
    }
}
