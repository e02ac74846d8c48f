package dev.crucible.cli.derive;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * {@code crucible derive --repos LIST --parallel N}: derives every repository of the list, N at a time, and
 * prints one table row per repository. Each derive is a process of its own (this JVM's java and class path),
 * so one that crashes, hangs or exhausts memory is a row and never stops the others, and one past the time
 * limit is stopped with everything it started.
 */
final class RepoBatch {
    private final String commit;
    private final boolean baseline;
    private final int parallel;
    private final long limitSeconds;
    private final Path out;
    private final PrintWriter stdout;
    private final PrintWriter err;

    private PhaseLimits phases = new PhaseLimits(null, null);

    /** Each repository's baseline runs get these setup and grading limits. */
    RepoBatch withPhaseLimits(PhaseLimits p) {
        this.phases = p;
        return this;
    }

    RepoBatch(String commit, boolean baseline, int parallel, long limitSeconds, Path out, PrintWriter stdout, PrintWriter err) {
        this.commit = commit;
        this.baseline = baseline;
        this.parallel = parallel;
        this.limitSeconds = limitSeconds;
        this.out = out;
        this.stdout = stdout;
        this.err = err;
    }

    /** Exit 0 when every repository got its row (usable or not), 2 when the list or the flags are wrong. */
    int run(Path list) {
        if (parallel < 1 || limitSeconds < 1) {
            err.println("crucible derive: --parallel and --repo-timeout must be at least 1");
            return DeriveCommand.EXIT_ERROR;
        }
        RepoList.Parsed parsed;
        try {
            parsed = RepoList.read(list);
            Files.createDirectories(out);
        } catch (IOException e) {
            err.println("crucible derive: --repos " + list + ": " + e.getMessage());
            return DeriveCommand.EXIT_ERROR;
        }
        if (!parsed.errors().isEmpty()) {
            parsed.errors().forEach(m -> err.println("crucible derive: --repos " + m));
            err.println("crucible derive: nothing was run; fix the list");
            return DeriveCommand.EXIT_ERROR;
        }
        List<RepoList.Entry> entries = parsed.entries();
        err.println("crucible derive: " + entries.size() + " repositories, " + parallel + " at a time, each at most "
                + limitSeconds + " s" + (baseline ? phases.describe() : "") + "; manifests, reports and logs under " + out);
        err.flush();
        long start = System.nanoTime();
        List<RepoOutcome> rows = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(parallel);
        try {
            List<Future<RepoOutcome>> futures = new ArrayList<>();
            for (RepoList.Entry e : entries) futures.add(pool.submit(() -> derive(e)));
            for (int i = 0; i < futures.size(); i++) rows.add(result(futures.get(i), entries.get(i)));
        } finally {
            pool.shutdownNow();
        }
        double hours = (System.nanoTime() - start) / 3.6e12;
        String table = RepoTable.markdown(rows, hours);
        stdout.print(table);
        stdout.flush();
        try {
            Files.writeString(out.resolve("results.md"), table);
        } catch (IOException e) {
            err.println("crucible derive: cannot write " + out.resolve("results.md") + ": " + e.getMessage());
        }
        return 0;
    }

    private RepoOutcome result(Future<RepoOutcome> f, RepoList.Entry e) {
        try {
            return f.get();
        } catch (Exception ex) { // the batch's own failure for one repository is that repository's row
            Throwable c = ex.getCause() != null ? ex.getCause() : ex;
            return new RepoOutcome(e, "failed", "could not run derive: " + c, "-", -1, 0);
        }
    }

    /** One repository's derive as a child process, its output in {@code out/NAME.log}. */
    private RepoOutcome derive(RepoList.Entry e) throws IOException, InterruptedException {
        Path log = out.resolve(e.name() + ".log");
        Path report = out.resolve(e.name() + ".report.json");
        Files.deleteIfExists(report); // a report from an earlier batch must not stand in for this one
        List<String> cmd = new ArrayList<>(javaCommand());
        cmd.addAll(List.of("derive", "--repo", e.repo().toString(), "--commit", commit,
                "-o", out.resolve(e.name() + ".yaml").toString(), "--report", report.toString()));
        if (e.job() != null) cmd.addAll(List.of("--job", e.job()));
        if (baseline) cmd.add("--baseline");
        if (baseline && phases.setup() != null) cmd.addAll(List.of("--setup-timeout", String.valueOf(phases.setup())));
        if (baseline && phases.grading() != null) cmd.addAll(List.of("--grading-timeout", String.valueOf(phases.grading())));
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        Integer exit = null;
        try {
            if (p.waitFor(limitSeconds, TimeUnit.SECONDS)) exit = p.exitValue();
            else stop(p);
        } catch (InterruptedException ex) {
            stop(p);
            keepStopped(log);
            throw ex;
        }
        if (exit == null) keepStopped(log);
        RepoOutcome o = RepoOutcome.read(e, exit, limitSeconds, log, report, (System.nanoTime() - t0) / 1e9);
        synchronized (err) {
            err.println("crucible derive: done " + RepoTable.row(o));
            err.flush();
        }
        return o;
    }

    private static final java.util.regex.Pattern SCRATCH = java.util.regex.Pattern.compile("\\(scratch (\\S+); results under (\\S+)\\)");

    /**
     * A derive stopped at the limit leaves its baseline scratch: keep its results as derive would have, delete the rest.
     * Its attempts' sandboxes are loop-mounted volumes whose owner (the stopped derive) is gone: they are unmounted first
     * ({@code OrphanVolumes}, which touches only volumes of dead processes), else the delete stopped at the mount and left
     * the scratch behind (lazygit 31 MB, excalidraw 157 MB, shadcn-ui 1.1 GB in the h-derive4 batches). What still
     * cannot be deleted is named in the repository's log.
     */
    static void keepStopped(Path log) {
        java.util.Optional<java.util.regex.Matcher> m;
        try (java.util.stream.Stream<String> lines = Files.lines(log)) {
            m = lines.map(SCRATCH::matcher).filter(java.util.regex.Matcher::find).findFirst();
        } catch (IOException | java.io.UncheckedIOException ex) {
            return;
        }
        if (m.isEmpty()) return;
        Path scratch = Path.of(m.get().group(1));
        String problem = null;
        try {
            dev.crucible.verifier.sandbox.OrphanVolumes.sweep();
            RunResults.keep(scratch, Path.of(m.get().group(2)));
        } catch (IOException | RuntimeException ex) {
            problem = ex.toString();
        }
        if (Files.exists(scratch, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            try {
                Files.writeString(log, "crucible derive: the stopped derive's scratch " + scratch + " could not be deleted"
                        + (problem == null ? "" : ": " + problem) + "\n", java.nio.file.StandardOpenOption.APPEND);
            } catch (IOException ignored) {
                // the log is the only place to say it
            }
        }
    }

    /** Stops a derive and whatever it started (crucible run's setup, sandboxes, test runners). */
    private static void stop(Process p) throws InterruptedException {
        List<ProcessHandle> tree = new ArrayList<>(p.descendants().toList());
        tree.forEach(ProcessHandle::destroy);
        p.destroy();
        if (!p.waitFor(10, TimeUnit.SECONDS)) p.destroyForcibly();
        tree.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
        p.waitFor(10, TimeUnit.SECONDS);
        // its volumes count as orphaned only once every process that could own one is gone
        for (ProcessHandle h : tree) {
            try {
                h.onExit().get(10, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException ignored) {
                // a process that outlives SIGKILL keeps its volume; the log then names the scratch
            }
        }
    }

    /** This JVM's java and class path, running the CLI's main class. */
    static List<String> javaCommand() {
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        return List.of(java, "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"), dev.crucible.cli.Main.class.getName());
    }

    static String seconds(double s) {
        return s < 0 ? "-" : String.format(Locale.ROOT, "%.0f", s);
    }
}
