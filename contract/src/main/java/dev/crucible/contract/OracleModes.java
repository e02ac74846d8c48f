package dev.crucible.contract;

import java.util.List;

/**
 * The values of a verifier's {@code oracle} (how pytest and unittest suites are graded) and {@code inProcessVerdicts}
 * (whether a test the isolated oracle could not split counts). One list for the CRD's enums and the sidecar's spec check.
 */
public final class OracleModes {
    /** Isolated where grading is boxed (bubblewrap locally, the oracle-worker container in a pod), else in-process. */
    public static final String AUTO = "auto";
    public static final String ISOLATED = "isolated";
    public static final String IN_PROCESS = "in-process";
    public static final List<String> ORACLE = List.of(AUTO, ISOLATED, IN_PROCESS);

    /**
     * A test graded in-process beside the agent's code while the rest of the run is isolated earns nothing: the code
     * under test shares its process with the assertions and can forge them (blind grading round 16). The default.
     */
    public static final String UNTRUSTED = "untrusted";
    /** Such a test's in-process verdict counts, as before: an environment author's choice, forgeable by the agent. */
    public static final String TRUSTED = "trusted";
    public static final List<String> IN_PROCESS_VERDICTS = List.of(UNTRUSTED, TRUSTED);

    private OracleModes() {}
}
