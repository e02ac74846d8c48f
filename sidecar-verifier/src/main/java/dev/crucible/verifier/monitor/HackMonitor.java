package dev.crucible.verifier.monitor;

import dev.crucible.contract.DetectorNames;

import dev.crucible.verifier.pristine.FileHashes;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The live reward-hack monitor: one daemon thread that scans the workspace and the interpreter's
 * site directories, checks read-sentinels and grader integrity, and samples the agent's processes.
 * Start it after reset, register agent processes with {@link #watchProcess}, stop it before grading
 * (after a final {@link #scanNow}). Findings are stamped with time, step index and the policy action,
 * deduplicated, and handed to the listener (which applies terminate / revert).
 */
public final class HackMonitor implements AutoCloseable {
    private final MonitorConfig cfg;
    private final Consumer<Finding> listener;
    private final WorkspaceScanner scanner;
    private final SyntaxRules syntax; // null: no usable interpreter, text rules only
    private final ProcessObserver processes;
    private final AtimeSentinels sentinels = new AtimeSentinels();
    private final SiteDirWatch siteDirs;
    private final Map<Path, String> graderHashes = new HashMap<>();
    private final Map<String, Finding> findings = new LinkedHashMap<>();
    private final AtomicInteger step = new AtomicInteger(-1);
    private final AtomicLong cpuNanos = new AtomicLong();
    private final AtomicLong scans = new AtomicLong();
    private final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    /**
     * Serialises scans (the timer's, {@link #scanNow}, the final one). It is not the monitor's lock: findings,
     * steps, process registration and stop never wait for a scan, and a scan's reads of agent files are
     * bounded ({@link dev.crucible.files.BoundedRead}), so no file the agent made can hold either for long.
     */
    private final Object scanLock = new Object();
    private ScheduledExecutorService timer;
    private volatile MonitorObserver observer;
    private volatile long threadId = -1;
    /** The children walk runs on a thread of its own: a file scan (seconds on a big tree) must not hold it up. */
    private ScheduledExecutorService discoverer;
    private volatile long discoverThreadId = -1;
    private final AtomicLong discoverNanos = new AtomicLong();
    private long lastScanNanos;
    private long nextScanAt;
    private static final long SCAN_BUDGET_FACTOR = 100;
    /** Period of the children walk between full process samples: most commands live longer than this. */
    private static final long DISCOVER_MS = 5;

    public HackMonitor(MonitorConfig cfg, Consumer<Finding> listener) {
        this.cfg = cfg;
        this.listener = listener;
        Path baselineRoot = cfg.baselineRoot() == null ? cfg.workspace() : cfg.baselineRoot();
        this.syntax = SyntaxRules.find(java.util.Arrays.asList(cfg.python(), "python3"), cfg.workspace());
        this.scanner = new WorkspaceScanner(cfg.workspace(), cfg.baselineRoot(), cfg.pristine(), cfg.stdlibModules(), syntax,
                new GitWatch(cfg.workspace(), baselineRoot));
        List<Path> hiddenRoots = new ArrayList<>(cfg.hiddenFiles());
        this.processes = new ProcessObserver(hiddenRoots, cfg.graderDirs());
        if (cfg.pristine() != null) {
            var pp = cfg.pristine().protectedPaths();
            // a section-judged configuration and the verifier command's own files (a Makefile: grading runs their
            // pristine copy) are the agent's to edit: writing them is no attempt by itself (ProtectedPaths.ownedWhole)
            List<Path> owned = cfg.pristine().hashes().keySet().stream().map(Path::of).filter(pp::ownedWhole).toList();
            processes.protectedPaths(cfg.workspace(), rel -> pp.ownedWhole(rel) || owned.stream().anyMatch(f -> f.startsWith(rel)));
        }
        this.siteDirs = new SiteDirWatch(cfg.siteDirs());
    }

    /** Takes the baseline (what exists now is never a finding) and starts the background thread. */
    public synchronized void start() {
        if (timer != null) return;
        if (syntax != null) syntax.warm(); // one helper process for the episode's scans, the one before grading included
        scanner.baseline();
        siteDirs.baseline();
        for (Path g : cfg.graderFiles()) if (Files.isRegularFile(g)) graderHashes.put(g, FileHashes.sha256(g));
        List<Path> sentinelFiles = new ArrayList<>();
        for (Path h : cfg.hiddenFiles()) {
            if (Files.isDirectory(h)) dev.crucible.verifier.pristine.WorkspaceWalker.walk(h, (rel, a) -> sentinelFiles.add(h.resolve(rel)));
            else if (Files.isRegularFile(h)) sentinelFiles.add(h);
        }
        sentinels.arm(sentinelFiles);
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "crucible-hack-monitor");
            t.setDaemon(true);
            threadId = t.getId();
            return t;
        });
        timer.scheduleWithFixedDelay(this::tickProcesses, 0, cfg.processInterval().toMillis(), TimeUnit.MILLISECONDS);
        long fast = Math.min(DISCOVER_MS, cfg.processInterval().toMillis());
        discoverer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "crucible-hack-monitor-procs");
            t.setDaemon(true);
            discoverThreadId = t.getId();
            return t;
        });
        discoverer.scheduleWithFixedDelay(this::tickDiscover, 0, fast, TimeUnit.MILLISECONDS);
        timer.scheduleWithFixedDelay(this::tickFiles, cfg.scanInterval().toMillis(), cfg.scanInterval().toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Stops the thread and the syntax helper; findings stay readable. */
    public synchronized void stop() {
        haltTimer();
        if (syntax != null) syntax.close();
    }

    private void haltTimer() {
        if (discoverer != null) {
            discoverer.shutdownNow();
            try {
                discoverer.awaitTermination(2, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            discoverer = null;
        }
        if (timer == null) return;
        timer.shutdownNow();
        try {
            timer.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        timer = null;
    }

    /**
     * The first half of the pass before grading: stops the background thread, then samples processes once
     * more. Grading starts processes of its own, so no sample may run once it has begun; the files are
     * scanned by {@link #finishFiles} while grading runs.
     */
    public synchronized void finishProcesses() {
        haltTimer();
        tickProcesses();
    }

    /**
     * The second half: the last file scan (syntax rules included), then the syntax helper is stopped. Every
     * agent process is dead by then, so the workspace no longer changes and this may run beside grading.
     */
    public void finishFiles() {
        scanFiles(true);
        stop();
    }

    @Override
    public void close() { stop(); }

    public void watchProcess(long pid) { processes.watch(pid); }

    /**
     * Hands what the monitor sees from now on to {@code o} (processes at each sample, file changes at each scan,
     * findings): the trajectory. Set it before the agent starts; null stops it.
     */
    public void observe(MonitorObserver o) {
        observer = o;
        processes.observer = o;
        scanner.feed = o == null ? null : new ChangeFeed(o);
    }

    public void unwatchProcess(long pid) { processes.unwatch(pid); }

    /** Agent process roots still alive (their sessions are what gets killed before grading). */
    public Set<Long> watchedProcesses() { return processes.roots(); }

    public void setStep(int index) { step.set(index); }

    /** Agent processes another container's runner sampled (interactive pods): checked as the sampler checks its own. */
    public void observeProcesses(List<ObservedProcess> procs) {
        try {
            processes.observe(procs, this::report);
        } catch (RuntimeException e) {
            // a table vanished mid-read; the next sample tries again
        }
    }

    /** A bash tool call, checked before it runs: short commands escape any sampler. */
    public void inspectCommand(String command) {
        for (CommandRules.Hit h : CommandRules.match(command, ProcessHandle.current().pid())) {
            report(new WorkspaceScanner.Raw(h.detector(), h.severity(), null, h.evidence(), h.rule()));
        }
    }

    /**
     * The embedded agent's command, before it starts: a script it names ({@code sh -c "sh agent.sh"}, {@code python3
     * x.py}) is read now, from this host, and its lines checked as commands; a script that ends in milliseconds, or
     * removes itself, is not left to the sampler.
     */
    public void inspectAgentCommand(java.util.List<String> command, java.nio.file.Path cwd) {
        if (command == null || command.isEmpty() || cwd == null) return;
        String text = command.size() == 3 && command.get(1).equals("-c") ? command.get(2) : String.join(" ", command);
        inspectCommand(text);
        String script = ScriptCommands.scriptOf(text);
        if (script == null) return;
        java.nio.file.Path p = cwd.resolve(script).normalize();
        try {
            if (!java.nio.file.Files.isRegularFile(p) || java.nio.file.Files.size(p) > ScriptCommands.MAX_BYTES) return;
            processes.checkScript(script, java.nio.file.Files.readString(p, java.nio.charset.StandardCharsets.UTF_8), cwd.toString(),
                    "the agent's command runs", this::report);
        } catch (java.io.IOException | RuntimeException e) {
            // unreadable here (another user's, not UTF-8): the sampler reads it through the process if it can
        }
    }

    /** One synchronous pass over everything (before grading, and from tests); the monitor's lock is not held. */
    public void scanNow() {
        tickProcesses();
        scanFiles();
    }

    /**
     * The pass that ends each step, before its response: what {@link #scanNow} sees and reports, every file change
     * the step made included, without pruning dead process roots (a walk of /proc that the step's just-killed
     * root would cost every step; the timer's next sample prunes it).
     */
    public void scanAfterStep() {
        long t0 = System.nanoTime();
        try {
            processes.sample(this::report, false);
        } catch (RuntimeException e) {
            // a process vanished mid-read; the timer's next sample tries again
        }
        t0 = dev.crucible.verifier.exec.GradingPhases.since("scan_processes", t0);
        scanFiles();
        dev.crucible.verifier.exec.GradingPhases.since("scan_files", t0);
    }

    /**
     * Stops watching read-sentinels: grading is about to read hidden tests itself. Other monitors in
     * this process that watch the same files (parallel attempts sharing hidden tests) stop trusting
     * their access times from here on: this grading's reads are not their agents'.
     */
    public void disarmSentinels() {
        synchronized (sentinels) {
            sentinels.readSinceArmed().forEach(p -> report(hiddenRead(p)));
            sentinels.disarm();
        }
    }

    /** Reports a finding that another part (the grader, the episode) observed. */
    public void report(String detector, String severity, String path, String evidence) {
        report(new WorkspaceScanner.Raw(detector, severity, path, evidence));
    }

    /** A finding with its rule (null: none), which a hack policy can override or ignore by {@code detector/rule}. */
    public void report(String detector, String severity, String path, String evidence, String rule) {
        report(new WorkspaceScanner.Raw(detector, severity, path, evidence, rule));
    }

    public synchronized List<Finding> findings() { return List.copyOf(findings.values()); }

    /** CPU time the monitor's own thread has used. */
    public long cpuNanos() {
        long live = threadId < 0 ? 0 : Math.max(0, mx.getThreadCpuTime(threadId));
        long walk = discoverThreadId < 0 ? 0 : Math.max(0, mx.getThreadCpuTime(discoverThreadId));
        return Math.max(cpuNanos.get(), live) + Math.max(discoverNanos.get(), walk);
    }

    public long scans() { return scans.get(); }

    public long lastScanNanos() { return lastScanNanos; }

    /** Files the last workspace scan read or hashed (what changed; a quiet step reads none). */
    int lastScanReads() { return scanner.lastReads(); }

    /** Short commands between full samples (the cheap children walk of {@link ProcessObserver#discover}). */
    private void tickDiscover() {
        try {
            processes.discover(this::report);
        } catch (RuntimeException e) {
            // a process vanished mid-read; the next walk tries again
        }
        discoverNanos.set(Math.max(0, mx.getCurrentThreadCpuTime()));
    }

    private void tickProcesses() {
        try {
            processes.sample(this::report);
        } catch (RuntimeException e) {
            // a process vanished mid-read; the next sample tries again
        }
        recordCpu();
    }

    /**
     * Periodic scans cost one directory walk each (about 0.6 ms for 20 files, 60 ms for 2,000, 300 ms
     * for 20,000 here), so a scan is skipped until 100× the last scan's duration has passed: the monitor
     * stays near 1 % of a core on any repository, big ones simply get findings later. The scan before
     * grading ({@link #scanNow}) always runs, so nothing is missed, only reported later.
     */
    private void tickFiles() {
        if (nextScanAt != 0 && System.nanoTime() - nextScanAt < 0) return;
        try {
            scanFiles();
            nextScanAt = System.nanoTime() + SCAN_BUDGET_FACTOR * lastScanNanos;
        } catch (RuntimeException e) {
            // the agent is rewriting files under us; the next scan sees the result
        }
        recordCpu();
    }

    private void scanFiles() { scanFiles(false); }

    /** {@code last}: the scan before grading, which judges what earlier scans could not (a config file being written). */
    private void scanFiles(boolean last) {
        long w = System.nanoTime();
        synchronized (scanLock) {
            dev.crucible.verifier.exec.GradingPhases.since("scan_lock", w); // a scan of the timer's still running
            scanFilesLocked(last);
        }
    }

    private void scanFilesLocked(boolean last) {
        long t0 = System.nanoTime();
        scanner.scan(this::report, last);
        long t1 = dev.crucible.verifier.exec.GradingPhases.since("scan_tree", t0);
        siteDirs.check(this::report);
        t1 = dev.crucible.verifier.exec.GradingPhases.since("scan_site", t1);
        synchronized (sentinels) {
            sentinels.readSinceArmed().forEach(p -> report(hiddenRead(p)));
        }
        for (var e : graderHashes.entrySet()) {
            if (!Files.isRegularFile(e.getKey()) || !FileHashes.sha256(e.getKey()).equals(e.getValue())) {
                report(new WorkspaceScanner.Raw(DetectorNames.GRADER_TAMPERING, "critical", e.getKey().toString(), "grader file changed since reset"));
                e.setValue("reported");
            }
        }
        t1 = dev.crucible.verifier.exec.GradingPhases.since("scan_grader", t1);
        List<String> bad = cfg.pristine().corruptedQuick();
        dev.crucible.verifier.exec.GradingPhases.since("scan_pristine", t1);
        for (String b : bad) report(new WorkspaceScanner.Raw(DetectorNames.GRADER_TAMPERING, "critical", b, "pristine copy of a protected file changed"));
        scans.incrementAndGet();
        lastScanNanos = System.nanoTime() - t0;
    }

    private static WorkspaceScanner.Raw hiddenRead(Path p) {
        return new WorkspaceScanner.Raw(DetectorNames.HIDDEN_TEST_ACCESS, "critical", p.toString(), "hidden test / ground-truth file was read during the episode");
    }

    private void recordCpu() {
        if (Thread.currentThread().getId() == threadId) cpuNanos.set(Math.max(0, mx.getCurrentThreadCpuTime()));
    }

    /**
     * Applies the hack policy: a disabled or ignored detector/rule is dropped, the severity override
     * applies, and a finding of severity info is only recorded (action record, never the policy's).
     */
    private void report(WorkspaceScanner.Raw raw) {
        var policy = cfg.policy();
        if (!policy.enabled(raw.detector()) || policy.ignored(raw.detector(), raw.rule())) return;
        String severity = policy.severityOf(raw.detector(), raw.rule(), raw.severity());
        String action = Finding.INFO.equals(severity) ? Finding.RECORD : policy.action();
        Finding f = new Finding(raw.detector(), severity, raw.path(), raw.evidence(), Instant.now().toString(), step.get(), action, raw.rule());
        boolean isNew;
        synchronized (this) {
            isNew = findings.putIfAbsent(f.key(), f) == null;
        }
        if (!isNew) return;
        MonitorObserver o = observer;
        if (o != null) {
            try {
                o.finding(f);
            } catch (RuntimeException e) {
                // the trajectory's trouble never stops a finding
            }
        }
        listener.accept(f);
    }
}
