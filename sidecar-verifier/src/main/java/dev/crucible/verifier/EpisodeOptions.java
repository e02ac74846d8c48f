package dev.crucible.verifier;

import dev.crucible.verifier.exec.Executor;
import dev.crucible.verifier.exec.LocalExecutor;
import dev.crucible.verifier.monitor.Finding;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * How an episode runs.
 * <ul>
 * <li>{@code stateDir}: where the pristine copy, grading trees and results go; must be outside the
 *     workspace and out of the agent's reach (null: a fresh temporary directory).</li>
 * <li>{@code pristineSource}: where protected files are snapshotted from; null = the workspace at
 *     reset (live episodes); the environment's original workspace for post-hoc grading.</li>
 * <li>{@code onFinding}: called for each new finding (progress display); {@code onRevert}: called
 *     when the policy is revert, after protected files were restored (the snapshot issue wires
 *     a workspace restore here).</li>
 * <li>{@code gradingDir}: where grading trees and reports are built (null: {@code stateDir}); in a
 *     pod, a volume the environment container also mounts, since grading commands run there.</li>
 * <li>{@code gradingExecutor}: runs graded commands (null: {@code executor}); the CLI passes a
 *     {@link dev.crucible.verifier.sandbox.GradingSandbox}.</li>
 * <li>{@code probeExecutor}: where the interpreter is probed at reset (null: {@code executor}); in a pod,
 *     the grading container, so grading runs the environment's own interpreter.</li>
 * </ul>
 */
public record EpisodeOptions(Path stateDir, Path pristineSource, Executor executor, boolean runSetup,
                             Duration scanInterval, Duration processInterval, int maxStepOutputBytes,
                             Duration defaultStepTimeout, Duration maxStepTimeout, int maxSteps,
                             Consumer<Finding> onFinding, Consumer<Finding> onRevert, Path gradingDir,
                             Executor gradingExecutor, Executor probeExecutor) {

    /** The constructor before {@code probeExecutor}: the interpreter is probed through {@code executor}. */
    public EpisodeOptions(Path stateDir, Path pristineSource, Executor executor, boolean runSetup, Duration scanInterval,
                          Duration processInterval, int maxStepOutputBytes, Duration defaultStepTimeout, Duration maxStepTimeout,
                          int maxSteps, Consumer<Finding> onFinding, Consumer<Finding> onRevert, Path gradingDir, Executor gradingExecutor) {
        this(stateDir, pristineSource, executor, runSetup, scanInterval, processInterval, maxStepOutputBytes, defaultStepTimeout,
                maxStepTimeout, maxSteps, onFinding, onRevert, gradingDir, gradingExecutor, null);
    }

    /** The constructor before {@code gradingExecutor}: graded commands use {@code executor}. */
    public EpisodeOptions(Path stateDir, Path pristineSource, Executor executor, boolean runSetup, Duration scanInterval,
                          Duration processInterval, int maxStepOutputBytes, Duration defaultStepTimeout, Duration maxStepTimeout,
                          int maxSteps, Consumer<Finding> onFinding, Consumer<Finding> onRevert, Path gradingDir) {
        this(stateDir, pristineSource, executor, runSetup, scanInterval, processInterval, maxStepOutputBytes, defaultStepTimeout,
                maxStepTimeout, maxSteps, onFinding, onRevert, gradingDir, null);
    }

    /** The executor of graded commands. */
    public Executor grader() { return gradingExecutor == null ? executor : gradingExecutor; }

    /** The executor the interpreter is probed through. */
    public Executor prober() { return probeExecutor == null ? executor : probeExecutor; }

    public static EpisodeOptions defaults() {
        return new EpisodeOptions(null, null, new LocalExecutor(), false, Duration.ofMillis(1000), Duration.ofMillis(250),
                64 * 1024, Duration.ofSeconds(60), Duration.ofSeconds(600), 0, f -> { }, f -> { }, null);
    }

    public EpisodeOptions withStateDir(Path dir) {
        return new EpisodeOptions(dir, pristineSource, executor, runSetup, scanInterval, processInterval, maxStepOutputBytes,
                defaultStepTimeout, maxStepTimeout, maxSteps, onFinding, onRevert, gradingDir, gradingExecutor, probeExecutor);
    }

    public EpisodeOptions withPristineSource(Path source) {
        return new EpisodeOptions(stateDir, source, executor, runSetup, scanInterval, processInterval, maxStepOutputBytes,
                defaultStepTimeout, maxStepTimeout, maxSteps, onFinding, onRevert, gradingDir, gradingExecutor, probeExecutor);
    }

    public EpisodeOptions withRunSetup(boolean run) {
        return new EpisodeOptions(stateDir, pristineSource, executor, run, scanInterval, processInterval, maxStepOutputBytes,
                defaultStepTimeout, maxStepTimeout, maxSteps, onFinding, onRevert, gradingDir, gradingExecutor, probeExecutor);
    }

    public EpisodeOptions withIntervals(Duration scan, Duration process) {
        return new EpisodeOptions(stateDir, pristineSource, executor, runSetup, scan, process, maxStepOutputBytes,
                defaultStepTimeout, maxStepTimeout, maxSteps, onFinding, onRevert, gradingDir, gradingExecutor, probeExecutor);
    }

    public EpisodeOptions withStepLimits(int maxOutputBytes, Duration defaultTimeout, Duration maxTimeout, int steps) {
        return new EpisodeOptions(stateDir, pristineSource, executor, runSetup, scanInterval, processInterval, maxOutputBytes,
                defaultTimeout, maxTimeout, steps, onFinding, onRevert, gradingDir, gradingExecutor, probeExecutor);
    }

    public EpisodeOptions withListeners(Consumer<Finding> finding, Consumer<Finding> revert) {
        return new EpisodeOptions(stateDir, pristineSource, executor, runSetup, scanInterval, processInterval, maxStepOutputBytes,
                defaultStepTimeout, maxStepTimeout, maxSteps, finding, revert, gradingDir, gradingExecutor, probeExecutor);
    }

    public EpisodeOptions withGradingDir(Path dir) {
        return new EpisodeOptions(stateDir, pristineSource, executor, runSetup, scanInterval, processInterval, maxStepOutputBytes,
                defaultStepTimeout, maxStepTimeout, maxSteps, onFinding, onRevert, dir, gradingExecutor, probeExecutor);
    }

    public EpisodeOptions withExecutor(Executor e) {
        return new EpisodeOptions(stateDir, pristineSource, e, runSetup, scanInterval, processInterval, maxStepOutputBytes,
                defaultStepTimeout, maxStepTimeout, maxSteps, onFinding, onRevert, gradingDir, gradingExecutor, probeExecutor);
    }

    public EpisodeOptions withGradingExecutor(Executor e) {
        return new EpisodeOptions(stateDir, pristineSource, executor, runSetup, scanInterval, processInterval, maxStepOutputBytes,
                defaultStepTimeout, maxStepTimeout, maxSteps, onFinding, onRevert, gradingDir, e, probeExecutor);
    }

    public EpisodeOptions withProbeExecutor(Executor e) {
        return new EpisodeOptions(stateDir, pristineSource, executor, runSetup, scanInterval, processInterval, maxStepOutputBytes,
                defaultStepTimeout, maxStepTimeout, maxSteps, onFinding, onRevert, gradingDir, gradingExecutor, e);
    }
}
