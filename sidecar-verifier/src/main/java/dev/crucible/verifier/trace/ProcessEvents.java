package dev.crucible.verifier.trace;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.verifier.sandbox.BoxSession;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The kernel's process events (fork, exec, exit) for every process this JVM starts and their descendants, through a
 * small host-side helper ({@code proc_events.py}) on the proc connector: the agent's process table from events, not
 * from /proc samples, so a process of a few microseconds is in it with its parent. The helper runs on the host,
 * outside every box (the connector answers only in the host's network namespace), so nothing the agent runs can
 * reach it or forge what it reports. {@link #start} says why it cannot run (no python3, no connector, another PID
 * namespace, an old kernel without CAP_NET_ADMIN); callers then sample /proc as before.
 */
public final class ProcessEvents implements AutoCloseable {
    /** Where the events go, in the kernel's order, from this object's reader thread. */
    public interface Sink {
        void forked(long pid, long ppid, Instant at);

        /** {@code argv} null: the process was gone before its command line could be read. */
        void execed(long pid, List<String> argv, String cwd, Instant at);

        /** {@code status}: the wait status (exit code << 8, or the signal). */
        void exited(long pid, int status, Instant at);

        /** The kernel dropped events (the helper's socket was full): the table may miss processes from now on. */
        void lost(String why);
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long MAX_LINE = 64 << 10;
    private final Process helper;
    private final OutputStream ctl;
    private final Object syncLock = new Object();
    private long syncAsked;
    private long syncDone;
    private volatile boolean alive = true;
    private long tickNs;

    private ProcessEvents(Process helper) {
        this.helper = helper;
        this.ctl = helper.getOutputStream();
    }

    /** The helper started and listening (its first answer read), or null with the reason in {@code why[0]}. */
    public static ProcessEvents start(Sink sink, String[] why) {
        var py = BoxSession.python();
        if (py.isEmpty()) {
            why[0] = "no system python3 for the process-event helper";
            return null;
        }
        Process p = null;
        try {
            String script;
            try (InputStream in = ProcessEvents.class.getResourceAsStream("proc_events.py")) {
                script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            p = new ProcessBuilder(py.get().toString(), "-I", "-S", "-c", script).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String first = out.readLine();
            JsonNode hello = first == null ? null : JSON.readTree(first);
            if (hello == null || !hello.has("ready")) {
                why[0] = hello != null && hello.has("unavailable") ? hello.get("unavailable").asText() : "the process-event helper ended at start";
                p.destroyForcibly();
                return null;
            }
            ProcessEvents ev = new ProcessEvents(p);
            ev.tickNs = hello.path("tick").asLong(0);
            Thread t = new Thread(() -> ev.pump(out, sink), "proc-events-" + p.pid());
            t.setDaemon(true);
            t.start();
            return ev;
        } catch (IOException | RuntimeException e) {
            if (p != null) p.destroyForcibly();
            why[0] = "the process-event helper could not start: " + e.getMessage();
            return null;
        }
    }

    private void pump(BufferedReader out, Sink sink) {
        try {
            String line;
            while ((line = out.readLine()) != null) {
                if (line.length() > MAX_LINE) continue; // the helper bounds what it reports: never the case
                JsonNode e = JSON.readTree(line);
                if (e.has("fork")) sink.forked(e.get("fork").asLong(), e.get("ppid").asLong(), at(e));
                else if (e.has("exec")) sink.execed(e.get("exec").asLong(), argv(e.get("argv")), text(e.get("cwd")), at(e));
                else if (e.has("exit")) sink.exited(e.get("exit").asLong(), e.get("status").asInt(), at(e));
                else if (e.has("lost")) sink.lost("the kernel dropped process events (" + e.get("lost").asLong() + " time(s)): the helper's socket was full");
                else if (e.has("synced")) {
                    synchronized (syncLock) {
                        syncDone = Math.max(syncDone, e.get("synced").asLong());
                        syncLock.notifyAll();
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // the helper's output ended or broke: the table stops here, reported below
        }
        alive = false;
        synchronized (syncLock) {
            syncLock.notifyAll();
        }
        sink.lost("the process-event helper ended");
    }

    /**
     * Returns once every event the kernel queued before this call has reached the sink (false: not within
     * {@code timeoutMs}, or the helper is gone). A file change is attributed only after this.
     */
    public boolean sync(long timeoutMs) {
        long n;
        synchronized (syncLock) {
            if (!alive) return false;
            n = ++syncAsked;
            try {
                ctl.write(("sync " + n + "\n").getBytes(StandardCharsets.US_ASCII));
                ctl.flush();
            } catch (IOException e) {
                return false;
            }
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
            while (syncDone < n && alive) {
                long left = end - System.nanoTime();
                if (left <= 0) return false;
                try {
                    TimeUnit.NANOSECONDS.timedWait(syncLock, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return syncDone >= n;
        }
    }

    /** The tick of the coarse clock that stamps file times here (null: not known). */
    public java.time.Duration tick() { return tickNs > 0 ? java.time.Duration.ofNanos(tickNs) : null; }

    public boolean alive() { return alive && helper.isAlive(); }

    public long pid() { return helper.pid(); }

    private static Instant at(JsonNode e) {
        long ns = e.get("t").asLong();
        return Instant.ofEpochSecond(ns / 1_000_000_000L, ns % 1_000_000_000L);
    }

    private static String text(JsonNode n) { return n == null || n.isNull() ? null : n.asText(); }

    private static List<String> argv(JsonNode n) {
        if (n == null || !n.isArray()) return null;
        List<String> out = new ArrayList<>();
        n.forEach(x -> out.add(x.asText()));
        return out;
    }

    /** Ends the helper: its stdin closes, it exits; killed if it does not within a second. */
    @Override
    public void close() {
        try {
            ctl.close();
        } catch (IOException e) {
            // gone already
        }
        try {
            if (!helper.waitFor(1, TimeUnit.SECONDS)) helper.destroyForcibly();
        } catch (InterruptedException e) {
            helper.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
