package dev.crucible.verifier.config;

import dev.crucible.contract.RewardMode;
import dev.crucible.contract.SpecDefaults;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;

/** {@code spec.verifier} of an RLEnvironment; the same shape is nested in composite components. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record VerifierSpec(
        String type,
        String command,
        String buildCommand,
        String framework,
        String reportPath,
        List<String> failToPass,
        List<String> passToPass,
        String rewardMode,
        Integer timeoutSeconds,
        List<String> protectedPaths,
        HiddenTests hiddenTests,
        Boolean countSkippedAsPassed,
        List<IoCase> ioCases,
        Bidirectional bidirectional,
        List<Component> components,
        String interpreter,
        List<ExcludedTest> excludedTests,
        String oracle,
        String inProcessVerdicts) {

    public VerifierSpec {
        failToPass = failToPass == null ? List.of() : List.copyOf(failToPass);
        passToPass = passToPass == null ? List.of() : List.copyOf(passToPass);
        protectedPaths = protectedPaths == null ? List.of() : List.copyOf(protectedPaths);
        ioCases = ioCases == null ? List.of() : List.copyOf(ioCases);
        components = components == null ? List.of() : List.copyOf(components);
        excludedTests = excludedTests == null ? List.of() : List.copyOf(excludedTests);
    }

    /** The shape before {@code inProcessVerdicts} (null: {@code untrusted}). */
    public VerifierSpec(String type, String command, String buildCommand, String framework, String reportPath,
                        List<String> failToPass, List<String> passToPass, String rewardMode, Integer timeoutSeconds,
                        List<String> protectedPaths, HiddenTests hiddenTests, Boolean countSkippedAsPassed, List<IoCase> ioCases,
                        Bidirectional bidirectional, List<Component> components, String interpreter, List<ExcludedTest> excludedTests,
                        String oracle) {
        this(type, command, buildCommand, framework, reportPath, failToPass, passToPass, rewardMode, timeoutSeconds, protectedPaths,
                hiddenTests, countSkippedAsPassed, ioCases, bidirectional, components, interpreter, excludedTests, oracle, null);
    }

    /** The shape before {@code oracle} (issue 33: null is {@code auto}). */
    public VerifierSpec(String type, String command, String buildCommand, String framework, String reportPath,
                        List<String> failToPass, List<String> passToPass, String rewardMode, Integer timeoutSeconds,
                        List<String> protectedPaths, HiddenTests hiddenTests, Boolean countSkippedAsPassed, List<IoCase> ioCases,
                        Bidirectional bidirectional, List<Component> components, String interpreter, List<ExcludedTest> excludedTests) {
        this(type, command, buildCommand, framework, reportPath, failToPass, passToPass, rewardMode, timeoutSeconds, protectedPaths,
                hiddenTests, countSkippedAsPassed, ioCases, bidirectional, components, interpreter, excludedTests, null, null);
    }

    /** Values of {@code oracle}: how pytest suites are graded (see the sidecar-verifier README, "The isolated oracle"). */
    public static final java.util.List<String> ORACLE_MODES = dev.crucible.contract.OracleModes.ORACLE;

    /** {@code auto} (isolated where bubblewrap boxes grading, else in-process), {@code isolated} or {@code in-process}. */
    public String oracleOrDefault() { return oracle == null ? dev.crucible.contract.OracleModes.AUTO : oracle; }

    /**
     * Whether a test the isolated oracle could not split (graded in-process beside the code under test, in a run that is
     * otherwise isolated) counts: only where the environment says {@code trusted} (see the sidecar-verifier README,
     * "In-process verdicts earn nothing").
     */
    public boolean inProcessVerdictsTrusted() { return dev.crucible.contract.OracleModes.TRUSTED.equals(inProcessVerdicts); }

    /** The shape before {@code excludedTests}. */
    public VerifierSpec(String type, String command, String buildCommand, String framework, String reportPath,
                        List<String> failToPass, List<String> passToPass, String rewardMode, Integer timeoutSeconds,
                        List<String> protectedPaths, HiddenTests hiddenTests, Boolean countSkippedAsPassed, List<IoCase> ioCases,
                        Bidirectional bidirectional, List<Component> components, String interpreter) {
        this(type, command, buildCommand, framework, reportPath, failToPass, passToPass, rewardMode, timeoutSeconds, protectedPaths,
                hiddenTests, countSkippedAsPassed, ioCases, bidirectional, components, interpreter, null, null);
    }

    /** Excluded test ids that do not count (never a failToPass test). */
    public java.util.Set<String> excludedIds() {
        java.util.Set<String> out = new java.util.LinkedHashSet<>();
        for (ExcludedTest e : excludedTests) if (e.id() != null && !failToPass.contains(e.id())) out.add(e.id());
        return out;
    }

    public String typeOrDefault() { return type == null ? SpecDefaults.VERIFIER_TYPE : type; }

    public String rewardModeOrDefault() { return rewardMode == null ? SpecDefaults.REWARD_MODE : rewardMode; }

    /** The reward mode; binary when unset (an unknown name is refused by {@code SpecValidator} before grading). */
    public RewardMode mode() { return RewardMode.orDefault(rewardMode); }

    public int timeoutOrDefault() { return timeoutSeconds == null ? SpecDefaults.VERIFIER_TIMEOUT_SECONDS : timeoutSeconds; }

    public boolean skippedCountsAsPassed() { return Boolean.TRUE.equals(countSkippedAsPassed); }

    /**
     * pytest unless a report format says otherwise; a test suite without framework is pytest (the
     * test-suite strategy first looks for another runner's command: {@code dev.crucible.verifier.grade.runner.Runners}).
     */
    public String frameworkOrDefault() { return framework == null ? SpecDefaults.TEST_FRAMEWORK : framework; }

    /** Interpreter used for pytest grading; {@code python3} resolved once at reset. */
    public String interpreterOrDefault() { return interpreter == null ? SpecDefaults.INTERPRETER : interpreter; }
}
