package dev.crucible.api.v1alpha1.environment;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.crucible.contract.DetectorNames;

/** Detectors of the live reward-hack monitor; names from the contract's {@link DetectorNames}. */
public enum HackDetector {
    @JsonProperty(DetectorNames.PROTECTED_PATH) PROTECTED_PATH_MODIFIED,
    @JsonProperty(DetectorNames.TEST_SKIP) TEST_SKIP_INJECTION,
    @JsonProperty(DetectorNames.STARTUP_HOOK) STARTUP_HOOK_INJECTION,
    @JsonProperty(DetectorNames.EQUALITY_OVERRIDE) EQUALITY_OVERRIDE,
    @JsonProperty(DetectorNames.MODULE_SHADOWING) MODULE_SHADOWING,
    @JsonProperty(DetectorNames.TIMING_PATCH) TIMING_MONKEYPATCH,
    @JsonProperty(DetectorNames.HIDDEN_TEST_ACCESS) HIDDEN_TEST_ACCESS,
    @JsonProperty(DetectorNames.GIT_HISTORY) GIT_HISTORY_MINING,
    @JsonProperty(DetectorNames.GRADER_TAMPERING) GRADER_TAMPERING,
    @JsonProperty(DetectorNames.NETWORK_EGRESS) NETWORK_EGRESS,
    @JsonProperty(DetectorNames.TEST_RUNNER) TEST_RUNNER_TAMPERING,
    @JsonProperty(DetectorNames.FRAME_INTROSPECTION) FRAME_INTROSPECTION
}
