package dev.crucible.cli.run;

import dev.crucible.api.v1alpha1.rollout.RolloutSpec;
import dev.crucible.cli.run.RunInputs.RolloutDoc;
import dev.crucible.verifier.Environment;
import dev.crucible.verifier.EpisodeOptions;
import dev.crucible.verifier.exec.LocalExecutor;
import dev.crucible.verifier.sandbox.GradingSandbox;
import dev.crucible.verifier.toolchain.ExecEnvironment;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The verifier's side of a local attempt, the same for a fresh run, a restored one and an interactive one:
 * the environment it grades with and the options of its episode (the grading box included).
 */
final class AttemptEpisodes {
    private AttemptEpisodes() {}

    /** The environment with this attempt's own copy of the hidden tests, in its 0700 state folder (shared with no other attempt). */
    static Environment graderEnv(RolloutDoc doc, ExecEnvironment execution, Path stateDir) throws IOException {
        Environment e = doc.environment().verifierEnv().withPrivateHiddenTests(stateDir.resolve("hidden"));
        return execution == null ? e : e.withExecution(execution);
    }

    /**
     * Setup already ran (LocalRollout runs it under the prefix's lock), so the episode does not; findings go to
     * the terminal as they come; each graded command runs in a fresh box unless the sandbox is off; a trainer's
     * steps run in the attempt's sandbox.
     */
    static EpisodeOptions options(RolloutDoc doc, AttemptOptions opt, Progress progress, ExecEnvironment execution,
                                  Sandbox sandbox, Path workspace, Path stateDir) {
        RolloutSpec r = doc.spec();
        int maxTurns = r.limits == null || r.limits.maxTurns == null ? 0 : r.limits.maxTurns;
        EpisodeOptions o = EpisodeOptions.defaults().withStateDir(stateDir).withRunSetup(false)
                .withListeners(progress::finding, f -> { })
                .withStepLimits(64 * 1024, Duration.ofSeconds(60), Duration.ofSeconds(600), maxTurns);
        if (opt.sandbox()) {
            long gradeWall = doc.environment().verifierEnv().verifier().timeoutOrDefault();
            o = o.withGradingExecutor(new GradingSandbox(SandboxChooser.limits(doc.environment(), gradeWall), new LocalExecutor(),
                    execution == null ? List.of() : execution.readOnly()));
        }
        return doc.interactive() ? o.withExecutor(new SandboxedExecutor(sandbox, workspace)) : o;
    }
}
