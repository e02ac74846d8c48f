package dev.crucible.verifier.sandbox;

import dev.crucible.verifier.exec.ExecRequest;
import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.exec.Executor;
import dev.crucible.verifier.exec.LocalExecutor;
import dev.crucible.verifier.exec.GradingPhases;
import dev.crucible.verifier.pristine.SetupDependencies;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Optional;
import java.util.function.LongConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs each graded command in a fresh {@link Box}. The grading layout is the contract: the command
 * runs in (a folder of) {@code BASE/grade-N}, which the box shows read-only; {@code BASE/results-N}
 * is the one writable folder (HOME, reports; its {@code shared}, when it exists, is shown at a short path too, see
 * {@link dev.crucible.verifier.exec.SharedTmp}); {@code BASE/support-N} is read-only when it
 * exists. A request that asks for a writable tree ({@link ExecRequest#writableExcept}) gets grade-N
 * writable too, the grader's files in it bound read-only on top. Nothing else of the host is there: not the workspace, the state folder, the sidecar or
 * its token. When the command ends its box is closed, so whatever it left running dies with it.
 *
 * <p>Grading never runs unconfined behind the caller's back: when no box can be made, the command
 * is not run and its result says why (exit 126), which grading reports as an error.
 */
public final class GradingSandbox implements Executor {
    private static final Pattern GRADE = Pattern.compile("grade-(\\d+)");
    private final Executor inner;
    private final BoxLimits limits;
    private final List<Path> toolchains;
    private volatile boolean prestarts = true;
    private final Map<Path, Warm> warm = new ConcurrentHashMap<>();

    public GradingSandbox(BoxLimits limits) { this(limits, new LocalExecutor()); }

    public GradingSandbox(BoxLimits limits, Executor inner) { this(limits, inner, List.of()); }

    /** {@code toolchains}: the execution environment's prefix and toolchain folders, shown read-only. */
    public GradingSandbox(BoxLimits limits, Executor inner, List<Path> toolchains) {
        this.limits = limits;
        this.inner = inner;
        this.toolchains = List.copyOf(toolchains);
    }

    /** What each graded command's box may use (the oracle's workers take its memory limit). */
    public BoxLimits limits() { return limits; }

    private volatile boolean network;

    /**
     * Graded commands share the host's network from now on. Only for the validation run that compares a task
     * commit's grade with and without the network (crucible verify --find-offline); never for a rollout.
     */
    public GradingSandbox withNetwork() {
        network = true;
        return this;
    }

    /** Turns {@link #prestart} on or off for later episodes (the grading bench measures both). */
    public void setPrestarting(boolean on) { prestarts = on; }

    /** Whether episodes should start their grading interpreter early through {@link #prestart}. */
    public boolean prestarts() { return prestarts && inner instanceof LocalExecutor; }

    /**
     * Starts {@code req} now in its box, its input held back: when {@link #run} later gets the same
     * request (argv, folder, environment, channel, output limits), it only writes the input and waits.
     * Grading starts its interpreter this way while the agent works, so that launching the box, the
     * interpreter and pytest's imports are off the time a trainer waits for a reward. Only what the
     * grader wrote runs before the input comes (the tree is copied into the bound, still empty, folder
     * after the agent ended). False when it cannot start here (the request then runs as usual).
     */
    public boolean prestart(ExecRequest req) {
        if (!prestarts || !(inner instanceof LocalExecutor local)) return false;
        Path cwd = req.cwd().toAbsolutePath().normalize();
        Layout l = layout(cwd, req.writableExcept());
        if (l == null) return false;
        Box box = null;
        try {
            box = Box.open(l.spec(), uidGroup(l.results()));
            box.letThrough(l.base());
            Box b = box;
            LocalExecutor.Started s = local.start(boxedRequest(box, req, cwd), b::attach);
            if (!s.isAlive()) {
                box.close();
                return false;
            }
            Warm old = warm.put(cwd, new Warm(req, box, s, l.gradeRoot()));
            if (old != null) old.close();
            return true;
        } catch (IOException | RuntimeException e) {
            if (box != null) box.close();
            return false;
        }
    }

    /** Ends a command {@link #prestart} started in {@code cwd} that will not be asked for (the episode ended or reset). */
    public void discard(Path cwd) {
        Warm w = warm.remove(cwd.toAbsolutePath().normalize());
        if (w != null) w.close();
    }

    @Override
    public java.util.Optional<String> refusal() {
        Box.Availability a = Box.availability();
        return a.ok() ? java.util.Optional.empty() : java.util.Optional.of(unavailable(a.problem()));
    }

    private static String unavailable(String problem) {
        return "grading sandbox unavailable: " + problem + "; grading never runs unconfined by default"
                + " (crucible run --no-sandbox grades without it)";
    }

    @Override
    public ExecResult run(ExecRequest req, LongConsumer onStart) {
        Path cwd = req.cwd().toAbsolutePath().normalize();
        Warm w = warm.get(cwd);
        // Another command in the same folder (a build step) runs as usual and leaves the early one waiting.
        // One that ended early (it could not import pytest) gives its own result: what a late start would give.
        if (w != null && sameLaunch(w.req(), req) && warm.remove(cwd, w)) return finishWarm(w, req, onStart);
        Layout l = layout(cwd, req.writableExcept());
        if (l == null) return refused("grading sandbox: " + cwd + " is not inside a grade-N tree; not run");
        long t0 = System.nanoTime();
        ExecResult r;
        Optional<String> limit;
        try (Box box = Box.open(l.spec(), uidGroup(l.results()))) {
            // read-only in the box, but readable whatever modes the agent gave its files (a writable tree was handed over at open)
            if (req.writableExcept() == null) box.handOver(l.gradeRoot());
            box.letThrough(l.base()); // the grading folders are then bound as they are, without staging mounts
            ExecRequest boxed = boxedRequest(box, req, cwd);
            long launch = GradingPhases.since("box_open", t0);
            GradingPhases.instant("launch", GradingPhases.nowMicros());
            r = inner.run(boxed, pid -> {
                box.attach(pid);
                onStart.accept(pid);
            });
            GradingPhases.instant("exit", GradingPhases.nowMicros());
            t0 = GradingPhases.since("command", launch);
            box.noteExit(r.exitCode());
            limit = box.limitExceeded();
        } catch (BoxUnavailableException e) {
            return refused(unavailable(e.getMessage()));
        } catch (IOException e) {
            return refused("grading sandbox: " + e.getMessage());
        }
        GradingPhases.since("box_close", t0);
        return withLimit(r, limit);
    }

    private ExecResult finishWarm(Warm w, ExecRequest req, LongConsumer onStart) {
        long t0 = System.nanoTime();
        ExecResult r;
        Optional<String> limit;
        try (Box box = w.box()) {
            box.handOver(w.gradeRoot()); // the tree was built after the box started: hand it over now
            onStart.accept(w.started().pid());
            long go = GradingPhases.since("box_open", t0);
            GradingPhases.instant("launch", GradingPhases.nowMicros());
            r = w.started().finish(req.stdin(), req.timeout());
            GradingPhases.instant("exit", GradingPhases.nowMicros());
            t0 = GradingPhases.since("command", go);
            box.noteExit(r.exitCode());
            limit = box.limitExceeded();
        } catch (IOException e) {
            w.started().kill();
            return refused("grading sandbox: " + e.getMessage());
        }
        GradingPhases.since("box_close", t0);
        return withLimit(r, limit);
    }

    /** Whether two requests start the same process (their input and timeout apply only once it is asked for). */
    static boolean sameLaunch(ExecRequest a, ExecRequest b) {
        return a.argv().equals(b.argv()) && a.cwd().toAbsolutePath().normalize().equals(b.cwd().toAbsolutePath().normalize())
                && a.env().equals(b.env()) && a.clearEnv() == b.clearEnv() && a.maxOutputBytes() == b.maxOutputBytes()
                && a.mergeStderr() == b.mergeStderr() && java.util.Objects.equals(a.resultChannel(), b.resultChannel());
    }

    private static ExecResult withLimit(ExecResult r, Optional<String> limit) {
        if (limit.isEmpty()) return r;
        String note = "crucible: grading ended: " + limit.get() + "\n";
        return new ExecResult(r.exitCode(), r.stdout(), (r.stderr() == null ? "" : r.stderr()) + note, r.truncated(), r.timedOut(), r.elapsedMs(), r.pid());
    }

    /** The launcher opens the result channel as fd 3 itself (the executor's own shell for it is one process more). */
    private static ExecRequest boxedRequest(Box box, ExecRequest req, Path cwd) {
        return req.withArgv(box.wrap(req.argv(), cwd, req.env(), req.resultChannel())).withResultChannel(null);
    }

    /**
     * The grading folders around {@code cwd}, and the box they get; null when {@code cwd} is not in a grade-N tree.
     * {@code graderFiles} non-null: the tree is writable but for them (binds go parents first, so they land on top).
     */
    private Layout layout(Path cwd, List<Path> graderFiles) {
        for (Path p = cwd; p != null && p.getFileName() != null; p = p.getParent()) {
            Matcher m = GRADE.matcher(p.getFileName().toString());
            if (m.matches()) {
                String n = m.group(1);
                Path base = p.getParent();
                BoxSpec spec = BoxSpec.of("grade-" + n, limits).withWritable(base.resolve("results-" + n));
                spec = graderFiles == null ? spec.withReadOnly(List.of(p)) : spec.withWritable(p).withReadOnly(graderFiles);
                spec = spec.withReadOnly(List.of(base.resolve("support-" + n))).withReadOnly(toolchains)
                        .withReadOnly(SetupDependencies.linkedTargets(p)).withScratch(SetupDependencies.scratch(SetupDependencies.linkedTargets(p)))
                        .withScratch(dev.crucible.verifier.pristine.GradingTree.runnerCaches(p)) // .pytest_cache: writable, fresh per command
                        .withHome(null).withNetwork(network);
                Path shared = dev.crucible.verifier.exec.SharedTmp.of(base.resolve("results-" + n)); // at a short path: sockets fit
                if (java.nio.file.Files.isDirectory(shared, java.nio.file.LinkOption.NOFOLLOW_LINKS)) spec = spec.withMoved(shared, dev.crucible.verifier.exec.SharedTmp.IN_BOX);
                return new Layout(p, base, spec, base.resolve("results-" + n));
            }
        }
        return null;
    }

    private record Layout(Path gradeRoot, Path base, BoxSpec spec, Path results) {}

    /**
     * The uid group of one grading's boxes, by its results folder: the graded command's box and the isolated oracle's
     * (its workers, the programs its tests start) run as one uid, which hands files between them as one user's run does.
     */
    public static String uidGroup(Path resultsDir) {
        return "grading:" + resultsDir.toAbsolutePath().normalize();
    }

    /** A prestarted command: the request it will serve, its box and its process. */
    private record Warm(ExecRequest req, Box box, LocalExecutor.Started started, Path gradeRoot) {
        void close() {
            started.kill();
            box.close();
        }
    }

    private static ExecResult refused(String why) {
        return new ExecResult(126, "", why + "\n", false, false, 0, -1);
    }
}
