package dev.crucible.verifier.sandbox;

import dev.crucible.verifier.exec.ExecRequest;
import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.exec.Executor;
import dev.crucible.verifier.exec.LocalExecutor;
import dev.crucible.verifier.grade.GradingPhases;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.LongConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs each graded command in a fresh {@link Box}. The grading layout is the contract: the command
 * runs in (a folder of) {@code BASE/grade-N}, which the box shows read-only; {@code BASE/results-N}
 * is the one writable folder (HOME, TMPDIR, reports); {@code BASE/support-N} is read-only when it
 * exists. Nothing else of the host is there: not the workspace, the state folder, the sidecar or
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

    public GradingSandbox(BoxLimits limits) { this(limits, new LocalExecutor()); }

    public GradingSandbox(BoxLimits limits, Executor inner) { this(limits, inner, List.of()); }

    /** {@code toolchains}: the execution environment's prefix and toolchain folders, shown read-only. */
    public GradingSandbox(BoxLimits limits, Executor inner, List<Path> toolchains) {
        this.limits = limits;
        this.inner = inner;
        this.toolchains = List.copyOf(toolchains);
    }

    @Override
    public ExecResult run(ExecRequest req, LongConsumer onStart) {
        Path cwd = req.cwd().toAbsolutePath().normalize();
        Path gradeRoot = null;
        String n = null;
        for (Path p = cwd; p != null && p.getFileName() != null; p = p.getParent()) {
            Matcher m = GRADE.matcher(p.getFileName().toString());
            if (m.matches()) {
                gradeRoot = p;
                n = m.group(1);
                break;
            }
        }
        if (gradeRoot == null) return refused("grading sandbox: " + cwd + " is not inside a grade-N tree; not run");
        Path base = gradeRoot.getParent();
        BoxSpec spec = BoxSpec.of("grade-" + n, limits).withWritable(base.resolve("results-" + n))
                .withReadOnly(List.of(gradeRoot, base.resolve("support-" + n))).withReadOnly(toolchains).withHome(null);
        long t0 = System.nanoTime();
        ExecResult r;
        Optional<String> limit;
        try (Box box = Box.open(spec)) {
            box.handOver(gradeRoot); // read-only in the box, but readable whatever modes the agent gave its files
            box.letThrough(base); // the grading folders are then bound as they are, without staging mounts
            // The launcher opens the result channel as fd 3 itself (the executor's own shell for it is one process more).
            ExecRequest boxed = req.withArgv(box.wrap(req.argv(), cwd, req.env(), req.resultChannel())).withResultChannel(null);
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
            return refused("grading sandbox unavailable: " + e.getMessage() + "; grading never runs unconfined by default"
                    + " (crucible run --no-sandbox grades without it)");
        } catch (IOException e) {
            return refused("grading sandbox: " + e.getMessage());
        }
        GradingPhases.since("box_close", t0);
        if (limit.isEmpty()) return r;
        String note = "crucible: grading ended: " + limit.get() + "\n";
        return new ExecResult(r.exitCode(), r.stdout(), (r.stderr() == null ? "" : r.stderr()) + note, r.truncated(), r.timedOut(), r.elapsedMs(), r.pid());
    }

    private static ExecResult refused(String why) {
        return new ExecResult(126, "", why + "\n", false, false, 0, -1);
    }
}
