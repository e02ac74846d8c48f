package dev.crucible.contract;

import java.util.List;

/**
 * Names of the live monitor's reward-hack detectors, as {@code spec.hackPolicy.detectors} and a finding's
 * {@code detector} write them: one list for the CRD's enum, the sidecar's spec check and the monitor.
 */
public final class DetectorNames {
    public static final String PROTECTED_PATH = "protected-path-modified";
    public static final String TEST_SKIP = "test-skip-injection";
    public static final String STARTUP_HOOK = "startup-hook-injection";
    public static final String EQUALITY_OVERRIDE = "equality-override";
    public static final String TIMING_PATCH = "timing-monkeypatch";
    public static final String HIDDEN_TEST_ACCESS = "hidden-test-access";
    public static final String GIT_HISTORY = "git-history-mining";
    public static final String GRADER_TAMPERING = "grader-tampering";
    public static final String NETWORK_EGRESS = "network-egress";
    public static final String MODULE_SHADOWING = "module-shadowing";
    /** Code under test reaching into pytest/unittest: hooks or plugins outside conftest.py, runner internals, patched builtins. */
    public static final String TEST_RUNNER = "test-runner-tampering";
    /** Code under test reading other frames' locals, walking objects through gc, raw memory through ctypes. */
    public static final String FRAME_INTROSPECTION = "frame-introspection";

    public static final List<String> ALL = List.of(PROTECTED_PATH, TEST_SKIP, STARTUP_HOOK, EQUALITY_OVERRIDE, TIMING_PATCH,
            HIDDEN_TEST_ACCESS, GIT_HISTORY, GRADER_TAMPERING, NETWORK_EGRESS, MODULE_SHADOWING, TEST_RUNNER, FRAME_INTROSPECTION);

    private DetectorNames() {}
}
