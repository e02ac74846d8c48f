package dev.crucible.verifier.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.crucible.verifier.exec.ExecRequest;
import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.exec.GradingPhases;
import dev.crucible.verifier.exec.ProcessTreeKiller;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;

/**
 * An episode's persistent box: ONE launch of {@link Box#wrap} (the same launcher, namespaces, uid, capabilities,
 * binds, limits and cgroups as a per-step box) whose command is a small exec server ({@code box_exec_server.py}),
 * which then runs each step's command as its own child, in its own session, with the step's cwd, environment,
 * timeout and output bound. A step then costs a pipe round trip and a fork/exec instead of a box start-up.
 *
 * <p>What keeps it equal to a per-step box: the server is reached only through its stdin/stdout, pipes this JVM
 * holds and no command gets; it makes itself non-dumpable (refused otherwise), so nothing in the box can open them
 * through /proc or ptrace it; it is the box's PID 1, which no signal from inside reaches. After each command it kills
 * every other process of the box's PID namespace, and this side checks the box's cgroups hold only bwrap and the
 * server: anything else ends the box.
 * A box launched earlier shows what a new one would only while the read-only binds are unchanged
 * ({@link #bindState}): the file tools replacing a protected file (a new inode the old bind no longer covers) makes
 * the caller start a new one. A server that dies, hangs past the step's timeout or answers out of bounds ends the
 * box; the step says so, and the next one starts a new box: no command ever runs outside one.
 */
public final class BoxSession implements AutoCloseable {
    private static final String SERVER = load();
    private static final List<String> KEEP = List.of("LANG", "LC_ALL", "TZ");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String EOF = "\0eof";
    /** An answer is at most two base64 streams of the output bound; far past that it is not the server's. */
    private static final int MAX_ANSWER = 64 << 20;
    /** How long past a step's timeout the server has to answer before the box is ended. */
    static final long GRACE_MS = 10_000;

    /** Each launcher's pid with its start time, recorded as it started (identity keys; gone with the Process). */
    private static final Map<Process, Map<Long, Long>> STARTED = java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());
    private final Box box;
    private final Process launcher;
    private final OutputStream requests;
    private final LinkedBlockingQueue<String> answers;
    private final StringBuffer serverErr;
    private final long serverPid;
    private final java.util.Set<Long> idle;
    private final List<String> binds;
    private final String pathKey;
    private final String insidePath;
    private volatile String ended;

    private BoxSession(Box box, Process launcher, LinkedBlockingQueue<String> answers, StringBuffer serverErr, long serverPid,
                       java.util.Set<Long> idle, List<String> binds, String pathKey, String insidePath) {
        this.box = box;
        this.launcher = launcher;
        this.answers = answers;
        this.serverErr = serverErr;
        this.requests = launcher.getOutputStream();
        this.serverPid = serverPid;
        this.idle = idle;
        this.binds = binds;
        this.pathKey = pathKey;
        this.insidePath = insidePath;
    }

    /** The interpreter of the exec server: a system python3, which every box sees (the system part of {@link HostView}). */
    public static Optional<Path> python() {
        for (String p : List.of("/usr/bin/python3", "/usr/local/bin/python3", "/bin/python3")) {
            if (Files.isExecutable(Path.of(p))) return Optional.of(Path.of(p));
        }
        return Optional.empty();
    }

    /** Launches the box with its exec server in {@code cwd}, with {@code env} (as a step's); waits until it answers. */
    public static BoxSession start(Box box, Path cwd, Map<String, String> env) throws IOException {
        Path py = python().orElseThrow(() -> new IOException("no system python3 for the box's exec server"));
        Map<String, String> launchEnv = hostEnv(env, true);
        ProcessBuilder pb = new ProcessBuilder(box.wrapAsInit(List.of(py.toString(), "-I", "-S", "-c", SERVER), cwd, launchEnv)).directory(cwd.toFile());
        pb.environment().clear();
        pb.environment().putAll(launchEnv);
        Process p = startHeld(pb);
        LinkedBlockingQueue<String> q = new LinkedBlockingQueue<>();
        StringBuffer err = new StringBuffer();
        daemon(() -> readAnswers(p.getInputStream(), q), "box-session-out-" + p.pid());
        daemon(() -> drain(p.getErrorStream(), err), "box-session-err-" + p.pid());
        try {
            String hello = q.poll(30, TimeUnit.SECONDS);
            if (hello == null || hello.equals(EOF)) throw new IOException("the box's exec server did not start: " + tail(err));
            JsonNode h = JSON.readTree(hello);
            if (h.path("dumpable").asInt(-1) != 0) throw new IOException("the box's exec server could not make itself non-dumpable");
            long pid = hostPid(p.pid(), h.path("ready").asLong(), false);
            if (pid <= 0) throw new IOException("the box's exec server is not among the box's processes");
            List<Long> m = box.members();
            return new BoxSession(box, p, q, err, pid, m == null ? null : new HashSet<>(m), bindState(box), env.get("PATH"), box.insidePath(launchEnv));
        } catch (IOException | RuntimeException e) {
            kill(p);
            throw e instanceof IOException io ? io : new IOException(e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            kill(p);
            throw new IOException("interrupted while the box started", e);
        }
    }

    /** Whether the next step may run here: the box is up and shows what a new box for {@code env} would. */
    public boolean current(Map<String, String> env) {
        return ended == null && launcher.isAlive() && java.util.Objects.equals(env.get("PATH"), pathKey) && binds.equals(bindState(box));
    }

    /** Why the box ended (null while it is up). */
    public String ended() { return ended; }

    /** The host pid of the exec server. */
    public long serverPid() { return serverPid; }

    /** Runs {@code req} in the box; {@code onStart} gets the command's host pid. */
    public synchronized ExecResult run(ExecRequest req, LongConsumer onStart) {
        final long start = System.nanoTime();
        long t0 = start;
        if (ended != null) return failed(req, "the episode's box has ended (" + ended + ")", start, -1);
        ObjectNode r = JSON.createObjectNode();
        r.putPOJO("argv", req.argv());
        r.put("cwd", req.cwd().toAbsolutePath().normalize().toString());
        Map<String, String> env = hostEnv(req.env(), req.clearEnv());
        env.put("PATH", insidePath); // as bwrap's --setenv PATH for a per-step box (the same while current())
        r.putPOJO("env", env);
        r.put("timeout", req.timeout().toMillis() / 1000.0);
        r.put("max", req.maxOutputBytes());
        r.put("stdin", req.stdin());
        r.put("merge", req.mergeStderr());
        long deadline = t0 + (req.timeout().toMillis() + GRACE_MS) * 1_000_000;
        try {
            requests.write((r.toString() + "\n").getBytes(StandardCharsets.UTF_8));
            requests.flush();
        } catch (IOException e) {
            end("its exec server is gone: " + e.getMessage());
            return failed(req, "the episode's box ended before the step (" + ended + "); the next step starts a new box", start, -1);
        }
        t0 = GradingPhases.since("session_send", t0);
        long pid = -1;
        JsonNode a = next(deadline);
        if (a != null && a.has("started")) {
            pid = hostPid(serverPid, a.path("started").asLong(), true);
            if (pid > 0) onStart.accept(pid);
            a = next(deadline);
        }
        t0 = GradingPhases.since("exec_wait", t0);
        if (a == null || !a.has("exit")) {
            boolean hung = ended == null;
            end(hung ? "its exec server did not answer within the step's timeout" : ended);
            return hung ? new ExecResult(-1, "", "", false, true, ms(start), pid)
                    : failed(req, "the episode's box ended during the step (" + ended + "); the next step starts a new box", start, pid);
        }
        Base64.Decoder b64 = Base64.getDecoder();
        int max = req.maxOutputBytes();
        byte[] out = b64.decode(a.path("out").asText(""));
        byte[] err = b64.decode(a.path("err").asText(""));
        boolean truncated = a.path("truncated").asBoolean() || out.length > max || err.length > max;
        if (a.path("left").asInt() > 0) end(a.path("left").asInt() + " process(es) of the step outlived the server's sweep");
        else if (idle != null && !new HashSet<>(box.members()).equals(idle)) end("a process of the step is left in the box's cgroups");
        GradingPhases.since("session_check", t0);
        return new ExecResult(a.path("exit").asInt(), text(out, max), text(err, max), truncated, a.path("timedOut").asBoolean(), ms(start), pid);
    }

    /** Ends the box: its launcher's tree (the server, every command) is killed. */
    @Override
    public void close() { end("closed"); }

    private void end(String why) {
        if (ended == null) ended = why;
        kill(launcher);
    }

    private JsonNode next(long deadline) {
        try {
            long wait = deadline - System.nanoTime();
            String line = wait <= 0 ? null : answers.poll(wait, TimeUnit.NANOSECONDS);
            if (line == null) return null;
            if (line.equals(EOF)) {
                end("its exec server ended" + (serverErr.length() > 0 ? ": " + tail(serverErr) : ", killed from inside the box"));
                return null;
            }
            return JSON.readTree(line);
        } catch (IOException e) {
            end("its exec server answered what is not JSON");
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** A step the box could not finish: exit 137 (killed), the reason where the caller reads output (stdout when merged). */
    private static ExecResult failed(ExecRequest req, String why, long t0, long pid) {
        String text = "[" + why + "]\n";
        return new ExecResult(137, req.mergeStderr() ? text : "", req.mergeStderr() ? "" : text, false, false, ms(t0), pid);
    }

    /** The environment a launcher started with {@code env} has: this JVM's (or only its locale and zone when cleared) plus {@code env}. */
    static Map<String, String> hostEnv(Map<String, String> env, boolean clear) {
        Map<String, String> out = new LinkedHashMap<>();
        if (clear) for (String k : KEEP) { if (System.getenv(k) != null) out.put(k, System.getenv(k)); }
        else out.putAll(System.getenv());
        out.putAll(env);
        return out;
    }

    /** The host pid of the process whose innermost pid is {@code nsPid}: a child of {@code root} ({@code direct}) or any descendant. */
    static long hostPid(long root, long nsPid, boolean direct) {
        List<Long> todo = new ArrayList<>(List.of(root));
        for (int i = 0; i < todo.size() && i < 64; i++) {
            for (long c : children(todo.get(i))) {
                String[] ns = nsPids(c);
                if (ns.length > 1 && ns[ns.length - 1].equals(Long.toString(nsPid))) return c;
                if (!direct) todo.add(c);
            }
        }
        return -1;
    }

    private static List<Long> children(long pid) {
        List<Long> out = new ArrayList<>();
        try {
            for (String s : Files.readString(Path.of("/proc", Long.toString(pid), "task", Long.toString(pid), "children")).trim().split("\\s+")) {
                if (!s.isEmpty()) out.add(Long.parseLong(s));
            }
        } catch (IOException | UncheckedIOException | NumberFormatException e) {
            // gone
        }
        return out;
    }

    private static String[] nsPids(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("NSpid:")) return line.substring(6).trim().split("\\s+");
            }
        } catch (IOException | UncheckedIOException e) {
            // gone
        }
        return new String[0];
    }

    /** What {@link Box#wrap} would bind read-only and copy in now, each with its {@link #identity}. */
    static List<String> bindState(Box box) {
        List<String> out = new ArrayList<>();
        for (Path r : box.spec().readOnly()) out.add(r + "=" + (box.bindable(r) ? identity(r) : "-"));
        for (Path f : box.spec().files().keySet()) out.add(f + "<" + (Files.isRegularFile(f) ? identity(f) : "-"));
        return out;
    }

    /**
     * A file's identity for {@link #bindState}: device and inode. A bind holds the inode, so a change in place shows
     * through it; a file replaced (renamed over, deleted and made anew) is a new inode the old bind no longer covers.
     */
    static String identity(Path p) {
        try {
            Map<String, Object> a = Files.readAttributes(p, "unix:dev,ino");
            return a.get("dev") + ":" + a.get("ino");
        } catch (IOException | UnsupportedOperationException e) {
            return "?";
        }
    }

    /**
     * Started from a thread of its own that lives as long as the box: bwrap's {@code --die-with-parent} is tied to the
     * thread that forked it, and a pool's worker may end before the episode does.
     */
    private static Process startHeld(ProcessBuilder pb) throws IOException {
        CompletableFuture<Process> f = new CompletableFuture<>();
        daemon(() -> {
            try {
                Process p = pb.start();
                STARTED.put(p, ProcessTreeKiller.startsOf(List.of(p.pid())));
                f.complete(p);
                p.waitFor();
            } catch (IOException | RuntimeException e) {
                f.completeExceptionally(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "box-session");
        try {
            return f.get(30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IOException("cannot start the box: " + e.getCause().getMessage(), e.getCause());
        } catch (InterruptedException | java.util.concurrent.TimeoutException e) {
            throw new IOException("the box's launcher did not start", e);
        }
    }

    private static void kill(Process p) {
        try {
            p.getOutputStream().close();
        } catch (IOException ignored) {
            // already gone
        }
        // the tree first (once the launcher is gone, its children are no longer found under it), by the pid and start time
        // recorded at launch: the launcher may have ended long ago, and its pid been given to another process since
        ProcessTreeKiller.killStarted(STARTED.getOrDefault(p, Map.of(p.pid(), -1L)));
        p.destroyForcibly();
        try {
            p.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void readAnswers(InputStream in, LinkedBlockingQueue<String> q) {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        byte[] buf = new byte[65536];
        try (in) {
            int n;
            while ((n = in.read(buf)) > 0) {
                for (int i = 0; i < n; i++) {
                    if (buf[i] != '\n') {
                        line.write(buf[i]);
                        if (line.size() > MAX_ANSWER) return; // not an answer of the server's: the box ends at EOF
                    } else {
                        q.add(line.toString(StandardCharsets.UTF_8));
                        line.reset();
                    }
                }
            }
        } catch (IOException ignored) {
            // the box ended
        } finally {
            q.add(EOF);
        }
    }

    private static void drain(InputStream in, StringBuffer keep) {
        byte[] buf = new byte[4096];
        try (in) {
            int n;
            while ((n = in.read(buf)) > 0) if (keep.length() < 4096) keep.append(new String(buf, 0, n, StandardCharsets.UTF_8));
        } catch (IOException ignored) {
            // the box ended
        }
    }

    private static String tail(CharSequence s) {
        String t = s.toString().strip();
        return t.isEmpty() ? "no message" : t.substring(Math.max(0, t.length() - 400));
    }

    private static String text(byte[] b, int max) { return new String(b, 0, Math.min(b.length, max), StandardCharsets.UTF_8); }

    private static long ms(long t0) { return (System.nanoTime() - t0) / 1_000_000; }

    private static void daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
    }

    private static String load() {
        try (InputStream in = BoxSession.class.getResourceAsStream("box_exec_server.py")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException | NullPointerException e) {
            throw new IllegalStateException("box_exec_server.py missing from the jar", e);
        }
    }
}
