package dev.crucible.verifier.grade;

import dev.crucible.contract.Verdict;
import dev.crucible.verifier.config.VerifierSpec;
import dev.crucible.verifier.exec.ExecResult;
import java.util.List;
import java.util.Map;

/** The outcome every strategy gives when the build command fails. */
final class BuildFailure {
    private BuildFailure() {}

    static Outcome outcome(String type, VerifierSpec v, ExecResult build) {
        return new Outcome(type, RewardFormula.reward(v.mode(), Category.BUILD_FAILED, 0, 1), Verdict.FAIL.wire(),
                Category.BUILD_FAILED.label, "build failed (exit " + build.exitCode() + "): " + Tail.of(build.combined()),
                0.0, List.of(), Map.of("buildExitCode", build.exitCode()), build.elapsedMs());
    }
}
