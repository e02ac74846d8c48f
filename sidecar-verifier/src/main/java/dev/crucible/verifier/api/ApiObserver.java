package dev.crucible.verifier.api;

import dev.crucible.verifier.tools.ToolCall;
import java.time.Instant;

/**
 * Every environment-API call as it ends (the trajectory's interactive half): {@code endpoint} reset, step or verify;
 * {@code call} the tool call of a step (null otherwise); {@code result} what was answered (a ResetResult, StepResult or
 * VerifyReport), or null with {@code error} when the call was refused or failed. Called on a worker thread; must not throw.
 */
public interface ApiObserver {
    void called(String endpoint, ToolCall call, Object result, String error, Instant start, long durationMs);
}
