package dev.crucible.cli.run;

import dev.crucible.contract.PhaseName;
import dev.crucible.api.v1alpha1.environment.SetupSpec;
import dev.crucible.cli.run.RunInputs.RolloutDoc;
import dev.crucible.verifier.toolchain.ExecEnvironment;
import dev.crucible.verifier.toolchain.ExecEnvironments;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.LongConsumer;
import java.util.function.Supplier;

/**
 * The Initializing phase's environment work for one attempt, run under the prefix's lock: the execution
 * environment's prefix (venv, pinned toolchains), then {@code setup.script}, then what setup installed.
 * A failure is recorded as the attempt's setup error (the agent never had a fair start), the rollout's
 * deadline passing during setup as timed out; both end the attempt before the agent runs.
 */
final class AttemptSetup {
    private final RolloutDoc doc;
    private final AttemptDir dir;
    private final Progress progress;
    private final AttemptRecord rec;

    AttemptSetup(RolloutDoc doc, AttemptDir dir, Progress progress, AttemptRecord rec) {
        this.doc = doc;
        this.dir = dir;
        this.progress = progress;
        this.rec = rec;
    }

    /** The prefix provisioned (its log starts setup.log); on failure the plan unchanged and the setup error set. */
    ExecEnvironment provision(ExecEnvironment execution) throws IOException {
        StringBuilder plog = new StringBuilder();
        try {
            int before = execution.warnings().size();
            execution = ExecEnvironments.provision(execution, plog);
            execution.warnings().subList(before, execution.warnings().size()).forEach(w -> progress.info("WARNING: " + w));
        } catch (IOException e) {
            rec.setupError = "the execution environment could not be provisioned: " + e.getMessage();
        }
        dev.crucible.files.OutputFolder.replace(dir.setupLog(), plog.toString()); // a fresh file: never through a planted link
        return execution;
    }

    /**
     * Runs the setup script (if any) with the time the rollout has left, then records what it installed in
     * the prefix (the pytest plugins grading may load). {@code pid} hears the script's process so Ctrl-C can kill it.
     */
    ExecEnvironment run(ExecEnvironment execution, Path workspace, Supplier<Duration> remaining, LongConsumer pid)
            throws IOException, InterruptedException {
        SetupSpec setup = doc.environment().spec().setup;
        if (rec.setupError == null && setup != null && setup.script != null && !setup.script.isBlank()) {
            progress.phase(PhaseName.Initializing, "running setup script");
            SetupRunner.Outcome s = SetupRunner.run(setup, workspace, execution.forSetup(), remaining.get(), dir.setupLog(), pid);
            rec.setupMs = s.elapsedMs();
            rec.setup = new RolloutResult.Setup(s.exitCode(), s.timedOut(), s.elapsedMs(), dir.setupLog().toString());
            if (s.timedOut() && remaining.get().compareTo(Duration.ofMillis(500)) < 0) {
                rec.timedOut = true; // the rollout's deadline, not the setup's own timeout, cut it short
                progress.info("deadline of " + doc.deadlineSeconds() + " s reached during setup: the agent never ran");
            } else if (!s.ok()) {
                rec.setupError = "the setup script " + (s.timedOut() ? "ran past its timeout" : "exited with status " + s.exitCode())
                        + "; see " + dir.setupLog();
            }
        }
        if (rec.setupError != null || rec.timedOut) return execution;
        int before = execution.warnings().size();
        StringBuilder alog = new StringBuilder();
        // the warm-ups count against what setup's own limit (and the rollout's time) leaves
        Duration left = remaining.get();
        if (setup != null && setup.timeoutSeconds != null) {
            Duration own = Duration.ofSeconds(setup.timeoutSeconds).minusMillis(rec.setupMs == null ? 0 : rec.setupMs);
            if (own.compareTo(left) < 0) left = own.isNegative() ? Duration.ZERO : own;
        }
        var verifier = doc.environment().spec().verifier;
        execution = ExecEnvironments.afterSetup(execution, workspace, alog, verifier == null ? null : verifier.command, left);
        dev.crucible.files.OutputFolder.appendText(dir.setupLog(), alog.toString());
        execution.warnings().subList(before, execution.warnings().size()).forEach(w -> progress.info("WARNING: " + w));
        if (!execution.pytestPlugins().isEmpty()) progress.info("pytest plugins installed at setup (the only ones loaded): " + execution.pytestPlugins());
        return execution;
    }
}
