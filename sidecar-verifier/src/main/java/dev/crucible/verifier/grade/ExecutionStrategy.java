package dev.crucible.verifier.grade;

import dev.crucible.verifier.grade.result.IntegrityFinding;
import dev.crucible.verifier.grade.result.TestCase;
import dev.crucible.verifier.grade.result.TestStatus;
import dev.crucible.verifier.config.VerifierSpec;
import dev.crucible.verifier.exec.ExecResult;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** Execution-only: the code runs without crashing (CodeRL: build -1, crash -0.6). */
public final class ExecutionStrategy implements Strategy {
    @Override
    public Outcome grade(VerifierSpec v, GradeContext ctx) {
        Duration timeout = Duration.ofSeconds(v.timeoutOrDefault());
        ExecResult build = ctx.build(v.buildCommand(), timeout);
        if (build != null && !build.ok()) return BuildFailure.outcome("execution", v, build);
        TreeWrites.Run run = TreeWrites.run(ctx, ctx.shellRequest(v.command(), timeout), TreeWrites.mayWrite(v.command()));
        ExecResult r = run.result();
        IntegrityFinding voiding = run.findings().stream().filter(IntegrityFinding::voidsResults).findFirst().orElse(null);
        boolean ok = r.ok() && voiding == null;
        Category c = ok ? Category.PASSED : Category.RUNTIME_ERROR;
        String reason = voiding != null ? "results not trusted: " + voiding.evidence()
                : r.timedOut() ? "timed out after " + timeout.toSeconds() + "s" : r.ok() ? null : "exit code " + r.exitCode();
        TestCase t = new TestCase("execution", ok ? TestStatus.PASSED : TestStatus.ERROR, "other", r.elapsedMs(),
                r.ok() ? reason : Tail.of(r.combined()));
        return new Outcome("execution", RewardFormula.reward(v.mode(), c, ok ? 1 : 0, 1), RewardFormula.verdict(c),
                c.label, reason, ok ? 1.0 : 0.0, List.of(t), Map.of("exitCode", r.exitCode()), r.elapsedMs(), run.findings());
    }
}
