package dev.crucible.verifier.grade;

import dev.crucible.verifier.grade.result.TestCase;
import dev.crucible.verifier.grade.result.TestStatus;
import dev.crucible.verifier.config.VerifierSpec;
import dev.crucible.verifier.exec.ExecResult;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Assertion tests (HumanEval, MBPP): a harness with asserts runs against the solution; exit 0 passes.
 * An AssertionError is a failed test (CodeRL -0.3); any other crash is a runtime error (-0.6).
 */
public final class AssertionStrategy implements Strategy {
    @Override
    public Outcome grade(VerifierSpec v, GradeContext ctx) {
        Duration timeout = Duration.ofSeconds(v.timeoutOrDefault());
        ExecResult build = ctx.build(v.buildCommand(), timeout);
        if (build != null && !build.ok()) return BuildFailure.outcome("assertion", v, build);
        ExecResult r = ctx.shell(v.command(), timeout, null);
        Category c = r.ok() ? Category.PASSED
                : !r.timedOut() && r.stderr().contains("AssertionError") ? Category.TESTS_FAILED : Category.RUNTIME_ERROR;
        TestStatus s = c == Category.PASSED ? TestStatus.PASSED : c == Category.TESTS_FAILED ? TestStatus.FAILED : TestStatus.ERROR;
        String reason = r.timedOut() ? "timed out after " + timeout.toSeconds() + "s" : r.ok() ? null : Tail.of(r.combined());
        return new Outcome("assertion", RewardFormula.reward(v.mode(), c, r.ok() ? 1 : 0, 1), RewardFormula.verdict(c),
                c.label, reason, r.ok() ? 1.0 : 0.0, List.of(new TestCase("assertions", s, "other", r.elapsedMs(), reason)),
                Map.of("exitCode", r.exitCode()), r.elapsedMs());
    }
}
