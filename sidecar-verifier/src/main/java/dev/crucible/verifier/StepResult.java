package dev.crucible.verifier;

import dev.crucible.verifier.monitor.Finding;
import java.util.List;

/**
 * One step's observation plus the findings seen during it; {@code done} once the episode was terminated;
 * {@code rewardFloored} once the episode has a counted finding (any severity but info): under the flag policy
 * the episode goes on, but its reward is floored whatever the tests say, so a trainer may stop it.
 */
public record StepResult(int stepIndex, String observation, int exitCode, boolean truncated, long elapsedMs, List<Finding> findings,
                         boolean done, boolean rewardFloored) {}
