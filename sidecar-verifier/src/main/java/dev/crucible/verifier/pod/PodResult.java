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
        OutcomeFacts f = OutcomeFacts.none().withTimedOut(timedOut, deadlineSeconds).withAgentExit(agentExit);
        if (report != null) {
            f = f.withFindings(VerifyReport.counted(report.hackFindings()), policyOf(report))
                    .withGrade(report.verdict(), report.reason());
        } else {
            f = f.withGrade(null, error);
        }
        return TerminalOutcome.of(f);
    }

    /** The report says which action ran through its fields: terminate sets verdict hacked, flag/revert set flagged. */
    private static String policyOf(VerifyReport r) {
        if ("hacked".equals(r.verdict())) return "terminate";
        List<Finding> f = r.hackFindings() == null ? List.of() : r.hackFindings();
        return f.stream().map(Finding::action).filter(a -> a != null).findFirst().orElse("flag");
    }

    public static String toJson(VerifyReport report, String phase, int turns, String message) {
        return toJson(report, new TerminalOutcome(PhaseName.valueOf(phase), null, null), turns, message);
    }

    /** The termination message: the outcome's phase and reason, the report's rewards and findings; {@code message} or the outcome's. */
    public static String toJson(VerifyReport report, TerminalOutcome outcome, int turns, String message) {
        for (int keep = 16; ; keep = keep / 2) {
            String json = render(report, outcome, turns, message != null ? message : outcome.message(), keep);
            if (json.getBytes(StandardCharsets.UTF_8).length <= MAX_BYTES || keep == 0) {
                return json;
            }
        }
    }

    private static String render(VerifyReport report, TerminalOutcome outcome, int turns, String message, int keepFindings) {
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
            List<Finding> findings = report.hackFindings() == null ? List.of() : report.hackFindings();
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
