package dev.crucible.api.v1alpha1.environment;

import java.util.List;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** What one verification runs; shared by the verifier and its composite components. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "self.type in ['io', 'bidirectional', 'composite'] || has(self.command)",
        message = "command is required for execution, assertion and test-suite verifiers", fieldPath = ".command")
@ValidationRule(value = "self.type != 'io' || (has(self.ioCases) && size(self.ioCases) > 0)",
        message = "an io verifier needs at least one entry in ioCases", fieldPath = ".ioCases")
@ValidationRule(value = "self.type != 'bidirectional' || has(self.bidirectional)",
        message = "a bidirectional verifier needs the bidirectional section", fieldPath = ".bidirectional")
@ValidationRule(value = "self.type == 'test-suite' || (!has(self.failToPass) && !has(self.passToPass))",
        message = "failToPass and passToPass apply only to test-suite verifiers", fieldPath = ".failToPass")
@ValidationRule(value = "!has(self.framework) || self.type == 'test-suite'",
        message = "framework applies only to test-suite verifiers", fieldPath = ".framework")
@ValidationRule(value = "!has(self.framework) || self.framework != 'junit-xml' || has(self.reportPath)",
        message = "junit-xml needs reportPath, the file (or glob) the command writes", fieldPath = ".reportPath")
@ValidationRule(value = "self.type == 'test-suite' || !has(self.excludedTests)",
        message = "excludedTests applies only to test-suite verifiers", fieldPath = ".excludedTests")
public class CheckSpec {
    @JsonPropertyDescription("Verification strategy.")
    @Required
    public VerifierType type;

    @JsonPropertyDescription("Shell command that runs the checks in the workspace.")
    @Size(max = 16384)
    public String command;

    @JsonPropertyDescription("Command that builds the code first; its failure is the CodeRL 'does not build' case.")
    @Size(max = 16384)
    public String buildCommand;

    @JsonPropertyDescription("How per-test results are read (test-suite only).")
    public TestFramework framework;

    @JsonPropertyDescription("Report file the command writes (junit-xml, tap), relative to the workspace.")
    @Size(max = 1024)
    public String reportPath;

    @JsonPropertyDescription("Test ids that fail before the fix and must pass after it (SWE-bench FAIL_TO_PASS).")
    @Size(max = 10000)
    public List<@Size(min = 1, max = 1024) String> failToPass;

    @JsonPropertyDescription("Test ids that pass before and must still pass after (SWE-bench PASS_TO_PASS).")
    @Size(max = 10000)
    public List<@Size(min = 1, max = 1024) String> passToPass;

    @JsonPropertyDescription("Tests that run but never count (left out of passToPass and of 'every test counts'; never a failToPass test), each with its reason.")
    @Size(max = 10000)
    public List<ExcludedTest> excludedTests;

    @JsonPropertyDescription("Seconds the checks may run.")
    @Min(1)
    @Max(86400)
    public Integer timeoutSeconds;

    // No schema default: this class sits in lists (verifier.components, additionalVerifiers), and a default
    // the server fills inside a list item makes every client-side `kubectl apply` report `configured`.
    @JsonPropertyDescription("Count skipped and xfailed tests as passed; off (false) unless the environment says so.")
    public Boolean countSkippedAsPassed;

    @JsonPropertyDescription("Interpreter used to run Python test suites at grading (resolved outside the workspace); default python3.")
    @Size(max = 256)
    public String interpreter;

    @JsonPropertyDescription("How pytest and unittest suites are graded: auto (default: split from the agent's code by the isolated oracle where grading is boxed, else in-process), isolated, or in-process.")
    public OracleMode oracle;

    @JsonPropertyDescription("Whether a test the isolated oracle could not split, graded in-process beside the agent's code, counts: untrusted (default: its pass earns nothing, as that code could forge it) or trusted.")
    public InProcessVerdicts inProcessVerdicts;

    @JsonPropertyDescription("stdin/stdout cases (io only).")
    @Size(max = 1000)
    public List<IoCase> ioCases;

    @JsonPropertyDescription("Solutions × tests matrix (bidirectional only).")
    public BidirectionalSpec bidirectional;
}
