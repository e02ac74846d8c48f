package dev.crucible.verifier.grade.oracle;

import dev.crucible.verifier.pristine.SetupDependencies;
import dev.crucible.verifier.sandbox.Box;
import dev.crucible.verifier.sandbox.BoxLimits;
import dev.crucible.verifier.sandbox.BoxSpec;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Starts the isolated oracle's untrusted workers for one grading, each in a {@link Box} of its own: the grading
 * process runs in a box without capabilities and cannot make another, so it asks here, one line "N" on the
 * {@code spawn} FIFO; the worker then reads requests from {@code wN.in} and answers on {@code wN.out} in {@code dir}
 * (it opens them itself once its interpreter is up, so that start-up overlaps the trusted side's).
 * The worker's box shows the grading tree as the agent's box showed it, writable: one throwaway copy per grading
 * ({@link WorkerTree}; .git, setup's folders and the hidden test data bound read-only from the tree), every trusted
 * test file replaced by an empty one, the
 * FIFO folder, the shared scratch folder and the toolchain, nothing else (not the results folder, the channel,
 * the support folder, the grader's state or the spawn FIFO, which lies outside the FIFO folder: a worker that could
 * write there could start and end workers); it has its own PID namespace, so no /proc entry names the grading
 * process. A line "-N" ends worker N. A line "cN" starts the box of a process a graded test started (its relay in
 * the grading box has pid N: {@code oracle_children}), made as a worker's, whose FIFOs are {@code cN.in} and {@code cN.out};
 * "-cN", or its end, ends it. {@link #close} ends them all.
 */
public final class OracleWorkers implements WorkerHost.Workers {
    private final Path dir;
    private final Path spawn;
    private final Path root;
    private final Path shared;
    private final Path sharedAt;
    private final String uidGroup;
    private final String python;
    private final Map<String, String> env;
    private final List<Path> masked;
    private final Path shown;
    private final List<Path> leftOut;
    /** Each worker's box: the grading box's memory (host round 5, B1: a tree module allocating at import had no bound here). */
    private final BoxLimits limits;
    private final Map<Integer, Running> running = new ConcurrentHashMap<>();
    /** The boxes of processes the graded tests started ("cN": N the relay's pid in the grading box; oracle_children). */
    private final Map<Integer, Running> children = new ConcurrentHashMap<>();
    private final Thread reader;
    /** Box starts under way (names "N" / "cN"), and those ended while they started; guarded by {@link #starts}. */
    private final java.util.Set<String> starting = new java.util.HashSet<>();
    private final java.util.Set<String> cancelled = new java.util.HashSet<>();
    private final java.util.concurrent.ExecutorService starts = java.util.concurrent.Executors.newFixedThreadPool(4, r -> {
        Thread t = new Thread(r, "oracle-box-start");
        t.setDaemon(true);
        return t;
    });
    /** The most boxes one grading runs at once, workers and started processes together. */
    volatile int capacity = 64;
    private volatile boolean closed;
    private volatile String problem;

    /**
     * The tree's throwaway copy that every box of this grading shows, workers' and started processes' alike, made at the
     * first box and removed at {@link #close}. One copy per box was 1 + workers + started processes copies of the tree
     * (host round 6, B1: an honest fix beside 3.5 GiB of data filled a 10 GiB disk limit while graded, reward 0; each
     * started process paid a copy). Shared as in a user's run: what one box writes there the next sees.
     */
    private Path copy;

    private record Running(Box box, Process process) {
        void stop() {
            process.destroyForcibly();
            box.close();
        }
    }

    /**
     * {@code dir}: a fresh folder for the workers' FIFOs; {@code spawn}: where the request FIFO is made, outside
     * {@code dir} and every folder the worker's box shows; {@code root}: the grading tree; {@code masked}: its trusted files
     * (relative); {@code shared}: the scratch folder both sides see; {@code env}: the grading environment (its PATH
     * names the toolchain the box shows).
     */
    /** The worker's variable naming the hidden test data files (relative, one a line), which its audit watches. */
    public static final String HIDDEN_DATA = "CRUCIBLE_ORACLE_HIDDEN";

    public OracleWorkers(Path dir, Path spawn, Path root, List<String> masked, Path shared, String python, Map<String, String> env) {
        this(dir, spawn, root, masked, shared, python, env, null, List.of());
    }

    /**
     * {@code agentRoot} (null: unknown): where the agent's box showed the workspace; each worker's copy of the tree is shown
     * there, without the {@code hidden} test files (relative) the agent's box never listed, and the grading tree read-only
     * where it lies, for the paths a test hands over (blind round 11: x41 was correct only away from its own workspace
     * path, x03 only where its tests folder listed files the agent never saw).
     */
    public OracleWorkers(Path dir, Path spawn, Path root, List<String> masked, Path shared, String python, Map<String, String> env,
                         Path agentRoot, List<String> hidden) {
        this(dir, spawn, root, masked, shared, python, env, agentRoot, hidden, shared, 0);
    }

    /**
     * {@code sharedAt}: where the boxes see {@code shared} (the grading box shows it there too: {@code exec.SharedTmp}, a
     * short path a socket under tmp_path fits in); the workers' TMPDIR. {@code shared} itself when it is shown where it lies.
     * {@code memoryBytes}: each worker box's memory limit, the grading box's (0: none), so code under test holds no more
     * memory in a worker than in the agent's box or the graded command's.
     */
    public OracleWorkers(Path dir, Path spawn, Path root, List<String> masked, Path shared, String python, Map<String, String> env,
                         Path agentRoot, List<String> hidden, Path sharedAt, long memoryBytes) {
        this(dir, spawn, root, masked, shared, python, env, agentRoot, hidden, sharedAt, memoryBytes, null);
    }

    /**
     * {@code uidGroup}: the boxes run as the uid of the graded command's box ({@link Box#open(BoxSpec, String)}), so files
     * pass between the test, the code under test and the programs tests start as they do in one user's run; null: the
     * workers' own uid, shared by them and by the programs tests start.
     */
    public OracleWorkers(Path dir, Path spawn, Path root, List<String> masked, Path shared, String python, Map<String, String> env,
                         Path agentRoot, List<String> hidden, Path sharedAt, long memoryBytes, String uidGroup) {
        this.uidGroup = uidGroup != null ? uidGroup : "oracle-workers:" + dir.toAbsolutePath().normalize();
        this.limits = BoxLimits.defaults().withMemory(memoryBytes);
        this.sharedAt = sharedAt.toAbsolutePath().normalize();
        this.dir = dir.toAbsolutePath().normalize();
        this.spawn = spawn.toAbsolutePath().normalize();
        this.root = root.toAbsolutePath().normalize();
        this.shared = shared.toAbsolutePath().normalize();
        this.python = python;
        this.env = Map.copyOf(env);
        List<Path> m = new ArrayList<>();
        for (String rel : masked) {
            Path p = this.root.resolve(rel).normalize();
            if (p.startsWith(this.root) && Files.isRegularFile(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) m.add(p);
        }
        this.masked = List.copyOf(m);
        this.shown = shownAt(this.root, agentRoot);
        List<Path> out = new ArrayList<>();
        for (String rel : hidden) {
            Path p = this.root.resolve(rel).normalize();
            if (p.startsWith(this.root) && !p.equals(this.root)) out.add(p);
        }
        this.leftOut = List.copyOf(out);
        for (Path seen : List.of(this.dir, this.root, this.shared, this.shown)) {
            if (this.spawn.startsWith(seen)) throw new IllegalArgumentException("isolated oracle: the spawn FIFO " + spawn + " is in " + seen + ", which the workers see");
        }
        try {
            Files.createDirectories(this.dir);
            Files.setPosixFilePermissions(this.dir, PosixFilePermissions.fromString("rwxr-xr-x"));
            Files.createDirectories(this.shared);
            Files.setPosixFilePermissions(this.shared, PosixFilePermissions.fromString("rwxrwxrwx"));
            // the first worker's FIFOs with the request FIFO, in one process: it is started now, beside pytest's start
            Files.createDirectories(this.spawn.getParent());
            WorkerFifos.mkfifo(this.spawn, this.dir.resolve("w1.in"), this.dir.resolve("w1.out"));
        } catch (IOException e) {
            throw new UncheckedIOException("isolated oracle: preparing " + this.dir + ": " + e.getMessage(), e);
        }
        reader = new Thread(() -> {
            handle("1");
            serve();
        }, "oracle-workers-" + this.dir.getFileName());
        reader.setDaemon(true);
        reader.start();
    }

    @Override
    public String problem() { return problem; }

    private void serve() {
        while (!closed) {
            // each open waits for the grading process to open the FIFO for writing; it ends at its close
            try (BufferedReader in = new BufferedReader(new InputStreamReader(Files.newInputStream(spawn), StandardCharsets.US_ASCII))) {
                String line;
                while ((line = in.readLine()) != null && !closed) handle(line.strip());
            } catch (IOException e) {
                if (!closed) problem = "reading the spawn FIFO: " + e.getMessage();
                return;
            }
        }
    }

    private void handle(String line) {
        if (!line.matches("-?c?\\d{1,7}")) return; // anything else on the FIFO is not a request
        boolean end = line.startsWith("-");
        String name = end ? line.substring(1) : line;
        boolean child = name.startsWith("c");
        int n = Integer.parseInt(child ? name.substring(1) : name);
        if (!child && n > 999_999) return;
        Map<Integer, Running> map = child ? children : running;
        if (end) {
            Running r;
            synchronized (starts) {
                if (starting.contains(name)) cancelled.add(name);
                r = map.remove(n);
            }
            if (r != null) r.stop();
            return;
        }
        if (child) {
            Running gone = children.get(n); // a relay of the same pid that was killed before it said "-cN"
            if (gone != null && !gone.process().isAlive() && children.remove(n, gone)) gone.stop();
        }
        synchronized (starts) {
            if (map.containsKey(n) || starting.contains(name)) return;
            if (running.size() + children.size() + starting.size() >= capacity) {
                failed(child ? name : "w" + name, "the grader already runs " + capacity + " boxes for this grading's workers and started processes");
                return;
            }
            starting.add(name);
        }
        // each box starts on a thread of its own: a test that starts many processes at once (or a loaded machine) no
        // longer queues one box's start behind the others' until a relay's wait ran out (blind round 18, h08)
        try {
            starts.execute(() -> start(name, n, child, map));
        } catch (java.util.concurrent.RejectedExecutionException e) {
            synchronized (starts) { starting.remove(name); }
        }
    }

    private void start(String name, int n, boolean child, Map<Integer, Running> map) {
        Running r = null;
        try {
            // a worker runs the oracle's worker; a process a test starts runs its program through the box end of its relay
            // (oracle_child_box.py): in the same box as a worker's, never in the grading box beside the test files
            r = startBox(child ? name : "w" + name, child ? OracleFiles.childSource() : OracleFiles.workerSource());
            if (r == null) return;
            Running started = r;
            synchronized (starts) { map.put(n, started); }
            if (child) started.process().onExit().thenRun(() -> { if (children.remove(n, started)) started.stop(); });
        } finally {
            boolean stop;
            synchronized (starts) {
                starting.remove(name);
                stop = cancelled.remove(name) || closed; // ended, or grading ended, while it started
                if (stop && r != null) map.remove(n, r);
            }
            if (stop && r != null) r.stop();
        }
    }

    /** Tells the waiting side why box {@code fifo} ("wN", "cN") will not come ({@link WorkerFifos#failed}). */
    private void failed(String fifo, String why) {
        try {
            WorkerFifos.failed(dir, fifo, why);
        } catch (IOException e) {
            problem = "telling " + fifo + " why its box did not start (" + why + "): " + e.getMessage();
        }
    }

    private synchronized Path treeCopy(List<Path> empty, boolean away) throws IOException {
        if (closed) throw new IOException("grading ended");
        // shown at the agent's workspace path: what the agent's box never listed is left out of the copy (hidden tests and
        // data), and the grading tree is shown read-only where it lies (a test may hand a path in it to the code)
        if (copy == null) copy = WorkerTree.copy(root, spawn.getParent().resolve("tree-copy"), empty, away ? leftOut : List.of(), away ? shown : null);
        return copy;
    }

    private synchronized void deleteCopy() {
        WorkerTree.delete(copy);
        copy = null;
    }

    private Running startBox(String fifo, String source) {
        Box box = null;
        try {
            Path in = dir.resolve(fifo + ".in");
            Path out = dir.resolve(fifo + ".out");
            if (!Files.exists(in, java.nio.file.LinkOption.NOFOLLOW_LINKS)) WorkerFifos.mkfifo(in, out);
            // the tree as the agent's box showed it: writable (a throwaway copy, shown where the tree lies; blind round 11,
            // x05: code correct only where its own folder is read-only), .git and setup's folders read-only as they are
            // the hidden test data is never read for the copy (only its mount point made): the trusted side's inotify watch
            // would take this JVM's read, during a later worker's start, for one of the worker's
            List<Path> empty = new ArrayList<>(masked);
            empty.addAll(hiddenData());
            boolean away = !shown.equals(root);
            Path copy = treeCopy(empty, away);
            BoxSpec spec = (sharedAt.equals(shared) ? BoxSpec.of("oracle-" + fifo, limits).withWritable(shared)
                    : BoxSpec.of("oracle-" + fifo, limits).withMoved(shared, sharedAt)).withMoved(copy, shown)
                    .withReadOnly(List.of(dir)).withReadOnly(away ? List.of(root) : WorkerTree.keptInPlace(root)).withReadOnly(hiddenData())
                    .withReadOnly(SetupDependencies.linkedTargets(root)).withHome(AGENT_HOME)
                    .withMasks(masked); // the trusted test files read as empty inside the worker's box
            if (away) {
                for (Path k : WorkerTree.keptInPlace(root)) spec = spec.withShownAt(k, shown.resolve(root.relativize(k).toString()));
                // the trusted test files of the copy read as empty the same way (the worker's audit knows a mask by its device)
                List<Path> there = new ArrayList<>();
                for (Path m : masked) if (!leftOut.contains(m)) there.add(shown.resolve(root.relativize(m).toString()));
                spec = spec.withMasks(there);
            }
            box = Box.open(spec, uidGroup);
            // the worker opens its FIFOs itself once its interpreter is up (a redirect here would hold the exec until
            // the trusted side's first call): its start-up overlaps the trusted side's
            // --tied: its stdin is a pipe only this JVM holds the other end of; the worker ends when it closes, so a
            // SIGKILLed CLI leaves no worker (bwrap's --die-with-parent misses a CLI that died while the launcher ran)
            List<String> argv = box.wrap(List.of(python, "-I", "-B", "-c", source, in.toString(), out.toString(), "--tied"),
                    shown, workerEnv(), null);
            ProcessBuilder pb = new ProcessBuilder(argv).redirectInput(ProcessBuilder.Redirect.PIPE)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD);
            pb.environment().clear();
            pb.environment().putAll(workerEnv());
            Process p = pb.start();
            box.attach(p.pid());
            return new Running(box, p);
        } catch (IOException | RuntimeException e) {
            if (box != null) box.close();
            String why = "starting " + (fifo.startsWith("c") ? "a test's process " : "worker ") + fifo + ": " + e.getMessage();
            problem = why;
            failed(fifo, why);
            return null;
        }
    }

    /**
     * Where the workers see their copy of the tree: the agent's workspace path where it is known and safe to show there
     * (absolute, not the grading tree or inside it, not a system folder), else the grading tree's own.
     */
    public static Path shownAt(Path root, Path agentRoot) {
        Path r = root.toAbsolutePath().normalize();
        if (agentRoot == null) return r;
        Path a = agentRoot.toAbsolutePath().normalize();
        if (a.getNameCount() < 2 || a.startsWith(r) || r.startsWith(a)) return r;
        for (String sys : List.of("/proc", "/dev", "/sys", "/usr", "/etc", "/bin", "/lib", "/sbin")) if (a.startsWith(sys)) return r;
        return a;
    }

    /** The hidden test data files, bound from the tree over the copy: the trusted side's inotify watch sees their reads. */
    private List<Path> hiddenData() {
        List<Path> out = new ArrayList<>();
        for (String rel : env.getOrDefault(HIDDEN_DATA, "").split("\n")) {
            Path p = root.resolve(rel).normalize();
            if (!rel.isEmpty() && p.startsWith(root) && Files.isRegularFile(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) out.add(p);
        }
        return out;
    }

    /**
     * HOME as an agent's box has it (BoxSpec's default, in the box's own /tmp): a worker's HOME in the scratch folder told
     * grading from the agent's run (blind round 11, x04). TMPDIR stays the scratch folder: a file the tree makes with
     * tempfile and hands back must be readable by the trusted side.
     */
    static final String AGENT_HOME = BoxSpec.of("home", BoxLimits.defaults()).home();

    private Map<String, String> workerEnv() {
        Map<String, String> e = new LinkedHashMap<>(workerEnv(env, sharedAt));
        e.put("HOME", AGENT_HOME);
        return e;
    }

    /** The worker's environment: the grading PATH (the toolchain), a HOME and TMPDIR in the shared scratch folder; no secret. */
    public static Map<String, String> workerEnv(Map<String, String> env, Path shared) {
        Map<String, String> e = new LinkedHashMap<>();
        e.put("PATH", env.getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin"));
        e.put("HOME", shared.toString());
        e.put("TMPDIR", shared.toString());
        e.put("LANG", env.getOrDefault("LANG", "C.UTF-8"));
        String hidden = env.get(HIDDEN_DATA);
        if (hidden != null && !hidden.isEmpty()) e.put(HIDDEN_DATA, hidden); // names only: the audit pops it at start
        return e;
    }

    /**
     * Ends every worker and the spawn reader. Their boxes close on a thread of their own, off the time a
     * trainer waits for the reward: each worker's process is killed at once, its box (cgroup) within milliseconds.
     */
    @Override
    public void close() {
        List<Running> all;
        synchronized (starts) {
            closed = true;
            all = new ArrayList<>(running.values());
            all.addAll(children.values());
            running.clear();
            children.clear();
        }
        starts.shutdown();
        all.forEach(r -> r.process().destroyForcibly());
        Thread t = new Thread(() -> {
            all.forEach(Running::stop);
            deleteCopy();
            if (reader.isAlive()) {
                try (OutputStream o = Files.newOutputStream(spawn, java.nio.file.StandardOpenOption.WRITE)) {
                    o.write('\n'); // wakes the reader if it still waits for a writer
                } catch (IOException ignored) {
                    // the reader already ended
                }
            }
        }, "oracle-workers-close");
        t.setDaemon(true);
        t.start();
    }
}
