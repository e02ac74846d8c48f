package dev.crucible.verifier.grade;

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
        ExecResult r = ctx.shell(v.command(), timeout, null);
        Category c = r.ok() ? Category.PASSED : Category.RUNTIME_ERROR;
        TestCase t = new TestCase("execution", r.ok() ? TestStatus.PASSED : TestStatus.ERROR, "other", r.elapsedMs(),
                r.ok() ? null : Tail.of(r.combined()));
        return new Outcome("execution", RewardMode.reward(v.rewardModeOrDefault(), c, r.ok() ? 1 : 0, 1), RewardMode.verdict(c),
                c.label, r.timedOut() ? "timed out after " + timeout.toSeconds() + "s" : r.ok() ? null : "exit code " + r.exitCode(),
                r.ok() ? 1.0 : 0.0, List.of(t), Map.of("exitCode", r.exitCode()), r.elapsedMs());
    }
}
