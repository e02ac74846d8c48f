package dev.crucible.verifier.monitor;

import dev.crucible.contract.DetectorNames;
import java.util.List;

/** The monitor's short names for the contract's {@link DetectorNames} (the one list of detectors). */
public final class Detectors {
    public static final String PROTECTED_PATH = DetectorNames.PROTECTED_PATH;
    public static final String TEST_SKIP = DetectorNames.TEST_SKIP;
    public static final String STARTUP_HOOK = DetectorNames.STARTUP_HOOK;
    public static final String EQUALITY_OVERRIDE = DetectorNames.EQUALITY_OVERRIDE;
    public static final String TIMING_PATCH = DetectorNames.TIMING_PATCH;
    public static final String HIDDEN_TEST_ACCESS = DetectorNames.HIDDEN_TEST_ACCESS;
    public static final String GIT_HISTORY = DetectorNames.GIT_HISTORY;
    public static final String GRADER_TAMPERING = DetectorNames.GRADER_TAMPERING;
    public static final String NETWORK_EGRESS = DetectorNames.NETWORK_EGRESS;
    public static final String MODULE_SHADOWING = DetectorNames.MODULE_SHADOWING;
    /** Code under test reaching into pytest/unittest: hooks or plugins outside conftest.py, runner internals, patched builtins. */
    public static final String TEST_RUNNER = DetectorNames.TEST_RUNNER;
    /** Code under test reading other frames' locals, walking objects through gc, raw memory through ctypes. */
    public static final String FRAME_INTROSPECTION = DetectorNames.FRAME_INTROSPECTION;

    public static final List<String> ALL = DetectorNames.ALL;

    private Detectors() {}
}
