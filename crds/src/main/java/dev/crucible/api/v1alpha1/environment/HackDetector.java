package dev.crucible.api.v1alpha1.environment;

import com.fasterxml.jackson.annotation.JsonProperty;

/** Detectors of the live reward-hack monitor. */
public enum HackDetector {
    @JsonProperty("protected-path-modified") PROTECTED_PATH_MODIFIED,
    @JsonProperty("test-skip-injection") TEST_SKIP_INJECTION,
    @JsonProperty("startup-hook-injection") STARTUP_HOOK_INJECTION,
    @JsonProperty("equality-override") EQUALITY_OVERRIDE,
    @JsonProperty("module-shadowing") MODULE_SHADOWING,
    @JsonProperty("timing-monkeypatch") TIMING_MONKEYPATCH,
    @JsonProperty("hidden-test-access") HIDDEN_TEST_ACCESS,
    @JsonProperty("git-history-mining") GIT_HISTORY_MINING,
    @JsonProperty("grader-tampering") GRADER_TAMPERING,
    @JsonProperty("network-egress") NETWORK_EGRESS,
    @JsonProperty("test-runner-tampering") TEST_RUNNER_TAMPERING,
    @JsonProperty("frame-introspection") FRAME_INTROSPECTION
}
