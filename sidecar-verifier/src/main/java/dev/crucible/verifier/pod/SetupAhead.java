package dev.crucible.verifier.pod;

import dev.crucible.verifier.Environment;
import dev.crucible.verifier.Episode;
import dev.crucible.verifier.EpisodeOptions;
import dev.crucible.verifier.exec.ExecResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

/**
 * A warm-pool pod runs its environment's setup before any claim (issue 39): setup depends on the environment
 * only, and it is what dominates a cold start. It runs as the first reset would run it (the same executor, so
 * the agent-exec container, the same variables and timeout); the first reset then skips it and takes its
 * initial copy and monitor baseline after the claim, as in a cold pod, so findings and grading are unchanged.
 * A setup that fails here is run again at the first reset, which reports its failure as a cold pod's does.
 * {@link dev.crucible.contract.RunFolder#SETUP_DONE} is written either way: the pod's startup probe waits for
 * it, so the operator claims pods whose setup is over.
 */
final class SetupAhead {
    private SetupAhead() {
    }

    /** The options the episode runs with after this: without setup when it ran and succeeded here. */
    static EpisodeOptions run(Environment env, Path workspace, EpisodeOptions options, Path doneFile) throws IOException {
        long start = System.nanoTime();
        ExecResult r = options.runSetup() ? Episode.runSetup(env, workspace, options.executor()) : null;
        long ms = (System.nanoTime() - start) / 1_000_000;
        EpisodeOptions after = options;
        if (r == null) {
            System.err.println("crucible-sidecar: no setup to run; pool pod ready");
        } else if (r.ok()) {
            System.err.println("crucible-sidecar: setup ran before the claim in " + ms + " ms");
            after = options.withRunSetup(false);
        } else {
            System.err.println("crucible-sidecar: setup failed before the claim (exit " + r.exitCode() + ", " + ms
                    + " ms); it runs again at the first reset");
        }
        Files.writeString(doneFile, Instant.now() + "\n");
        return after;
    }
}
