package dev.crucible.verifier.pod;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.crucible.contract.OutcomeFacts;
import dev.crucible.contract.PhaseName;
import dev.crucible.contract.TerminalOutcome;
import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.monitor.Finding;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The sidecar's result as the operator reads it from the container's termination message:
 * a compact JSON object that must fit Kubernetes' 4 KiB limit, so findings and messages are cut first.
 */
public final class PodResult {

    public static final int MAX_BYTES = 4096;
    private static final ObjectMapper JSON = new ObjectMapper();

    private PodResult() {
    }

    /** Succeeded, Failed, Hacked or TimedOut: {@link #outcome}'s phase. */
    public static String phase(VerifyReport report, boolean timedOut) {
        return outcome(report, timedOut, 0, null, null).phase().name();
    }

    /**
     * How the pod's rollout ended, by the contract's {@link TerminalOutcome#of} (the function the local
     * runtime and the operator use): a counted finding makes it Hacked even past the deadline.
     *
     * @param error why grading did not run (no report), or null
     */
    public static TerminalOutcome outcome(VerifyReport report, boolean timedOut, long deadlineSeconds, Integer agentExit, String error) {
        return outcome(report, List.of(), timedOut, deadlineSeconds, agentExit, error);
    }

    /**
     * As above, with the live monitor's findings ({@code live}): they count when grading left no report, as
     * they do for a local run (a report already carries every episode's findings).
     */
    public static TerminalOutcome outcome(VerifyReport report, List<Finding> live, boolean timedOut, long deadlineSeconds,
                                          Integer agentExit, String error) {
        List<Finding> findings = findingsOf(report, live);
        OutcomeFacts f = OutcomeFacts.none().withTimedOut(timedOut, deadlineSeconds).withAgentExit(agentExit)
                .withFindings(VerifyReport.counted(findings), report != null && "hacked".equals(report.verdict()) ? "terminate" : actionOf(findings));
        f = report != null ? f.withGrade(report.verdict(), report.reason()) : f.withGrade(null, error);
        return TerminalOutcome.of(f);
    }

    /**
     * The termination message {@link PodSidecar} writes when the episode ends: the outcome of what the pod
     * saw, the report's rewards and tests, the findings; {@code error} (why grading did not run) as its message.
     */
    public static String terminationMessage(VerifyReport report, List<Finding> live, boolean timedOut, long deadlineSeconds,
                                            Integer agentExit, String error, int turns) {
        return toJson(report, live, outcome(report, live, timedOut, deadlineSeconds, agentExit, error), turns, error);
    }

    private static List<Finding> findingsOf(VerifyReport report, List<Finding> live) {
        List<Finding> f = report != null ? report.hackFindings() : live;
        return f == null ? List.of() : f;
    }

    /** The policy action that ran, as the findings record it (a report with verdict hacked ran terminate). */
    private static String actionOf(List<Finding> findings) {
        return findings.stream().map(Finding::action).filter(a -> a != null).findFirst().orElse("flag");
    }

    public static String toJson(VerifyReport report, String phase, int turns, String message) {
        return toJson(report, new TerminalOutcome(PhaseName.valueOf(phase), null, null), turns, message);
    }

    /** The termination message: the outcome's phase and reason, the report's rewards and findings; {@code message} or the outcome's. */
    public static String toJson(VerifyReport report, TerminalOutcome outcome, int turns, String message) {
        return toJson(report, List.of(), outcome, turns, message);
    }

    private static String toJson(VerifyReport report, List<Finding> live, TerminalOutcome outcome, int turns, String message) {
        for (int keep = 16; ; keep = keep / 2) {
            String json = render(report, findingsOf(report, live), outcome, turns, message != null ? message : outcome.message(), keep);
            if (json.getBytes(StandardCharsets.UTF_8).length <= MAX_BYTES || keep == 0) {
                return json;
            }
        }
    }

    private static String render(VerifyReport report, List<Finding> findings, TerminalOutcome outcome, int turns, String message, int keepFindings) {
        ObjectNode root = JSON.createObjectNode();
        root.put("phase", outcome.phase().name());
        if (outcome.reason() != null) root.put("reason", outcome.reason());
        root.put("turns", turns);
        if (report != null) {
            root.put("reward", report.reward());
            if (report.testReward() != null) root.put("testReward", report.testReward());
            root.put("verdict", report.verdict());
            if (report.tests() != null) {
                ObjectNode tests = root.putObject("tests");
                tests.put("passed", report.tests().passed());
                tests.put("failed", report.tests().failed());
                tests.put("skipped", report.tests().skipped());
                tests.put("total", report.tests().total());
            }
        }
        if (report != null || !findings.isEmpty()) { // without a report, the live findings the outcome counted
            root.put("countedFindings", VerifyReport.counted(findings)); // survives cutting the list to fit 4 KiB
            ArrayNode out = root.putArray("hackFindings");
            for (Finding f : findings.subList(0, Math.min(keepFindings, findings.size()))) {
                ObjectNode n = out.addObject();
                n.put("detector", f.detector());
                n.put("severity", f.severity());
                if (f.rule() != null) n.put("rule", f.rule());
                n.put("path", f.path());
                n.put("evidence", cut(f.evidence(), keepFindings == 0 ? 0 : 160));
                n.put("time", f.time());
                n.put("step", f.stepIndex());
                n.put("action", f.action());
            }
            if (findings.size() > keepFindings) {
                root.put("findingsOmitted", findings.size() - keepFindings);
            }
        }
        if (message != null) {
            root.put("message", cut(message, 512));
        }
        return root.toString();
    }

    private static String cut(String s, int max) {
        return s == null || s.length() <= max ? s : s.substring(0, max) + "…";
    }
}
