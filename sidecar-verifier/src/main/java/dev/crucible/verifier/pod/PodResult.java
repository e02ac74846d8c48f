package dev.crucible.verifier.pod;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
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

    /** Succeeded, Failed, Hacked or TimedOut, decided like the local runtime decides it. */
    public static String phase(VerifyReport report, boolean timedOut) {
        if (timedOut) {
            return "TimedOut";
        }
        if (report == null || "error".equals(report.verdict())) {
            return "Failed";
        }
        if (report.hackFindings() != null && report.hackFindings().stream().anyMatch(Finding::isHack)) {
            return "Hacked";
        }
        return "Succeeded";
    }

    public static String toJson(VerifyReport report, String phase, int turns, String message) {
        for (int keep = 16; ; keep = keep / 2) {
            String json = render(report, phase, turns, message, keep);
            if (json.getBytes(StandardCharsets.UTF_8).length <= MAX_BYTES || keep == 0) {
                return json;
            }
        }
    }

    private static String render(VerifyReport report, String phase, int turns, String message, int keepFindings) {
        ObjectNode root = JSON.createObjectNode();
        root.put("phase", phase);
        root.put("turns", turns);
        if (report != null) {
            root.put("reward", report.reward());
            root.put("verdict", report.verdict());
            if (report.tests() != null) {
                ObjectNode tests = root.putObject("tests");
                tests.put("passed", report.tests().passed());
                tests.put("failed", report.tests().failed());
                tests.put("skipped", report.tests().skipped());
                tests.put("total", report.tests().total());
            }
            List<Finding> findings = report.hackFindings() == null ? List.of() : report.hackFindings();
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
