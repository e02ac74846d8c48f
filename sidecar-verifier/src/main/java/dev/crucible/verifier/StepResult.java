package dev.crucible.verifier;

import dev.crucible.verifier.monitor.Finding;
import java.util.List;

/** One step's observation plus the findings seen during it; {@code done} once the episode was terminated. */
public record StepResult(int stepIndex, String observation, int exitCode, boolean truncated, long elapsedMs, List<Finding> findings,
                         boolean done) {}
