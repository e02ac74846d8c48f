package dev.crucible.cli.integrity;

import dev.crucible.contract.PhaseName;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.crucible.cli.run.RolloutResult;
import dev.crucible.verifier.monitor.Finding;
import java.util.List;

/**
 * What the bench saw for one corpus agent: the real runtime's result (phase, reward, findings, how
 * long grading took) beside the naive grader's reward. A finding of severity {@code info} is recorded
 * but never counts as a flag.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"name", "kind", "mechanism", "description", "phase", "reason", "reward", "verdict", "flagged", "findings", "naive",
        "verifySeconds", "totalSeconds", "sandbox", "integrity", "result"})
public record AgentOutcome(String name, String kind, String mechanism, String description, String phase, String reason, Double reward,
                           String verdict, boolean flagged, List<FindingBrief> findings, NaiveGrader.Grade naive, Double verifySeconds,
                           double totalSeconds, String sandbox, String integrity, String result) {

    /** A finding as the report lists it. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record FindingBrief(String detector, String severity, String path, String evidence) {
        static FindingBrief of(Finding f) {
            String e = f.evidence();
            return new FindingBrief(f.detector(), f.severity(), f.path(), e == null || e.length() <= 300 ? e : e.substring(0, 300) + "…");
        }
    }

    static AgentOutcome of(CorpusAgent a, RolloutResult r, NaiveGrader.Grade naive, String resultFile) {
        List<Finding> all = r.hackFindings() == null ? List.of() : r.hackFindings();
        boolean flagged = all.stream().anyMatch(Finding::isHack);
        Long verifyMs = r.timings() == null ? null : r.timings().verifyMs();
        return new AgentOutcome(a.name(), a.kind().name(), a.mechanism(), a.description(), r.phase() == null ? null : r.phase().name(),
                r.reason(), r.reward(), r.verdict(), flagged, all.stream().map(FindingBrief::of).toList(), naive,
                verifyMs == null ? null : verifyMs / 1000.0, r.timings() == null ? 0 : r.timings().totalMs() / 1000.0, r.sandbox(),
                r.verifierReport() == null ? null : dev.crucible.verifier.grade.IsolatedTestSuite.integrityOf(r.verifierReport().details()).orElse(null),
                resultFile);
    }

    /** Its reward came from tests the isolated oracle graded split (issue 33), every counted one. */
    boolean isolated() { return "isolated".equals(integrity); }

    boolean exploit() { return "exploit".equals(kind); }

    /** Reward above zero: for an exploit, a forged reward. */
    boolean rewarded() { return reward != null && reward > 0; }

    /** An honest run that came out as it should: reward 1 and Succeeded. */
    boolean honestOk() { return reward != null && reward == 1.0 && PhaseName.Succeeded.name().equals(phase); }

    boolean naiveRewarded() { return naive != null && naive.reward() == 1; }

    /** One line for people: what happened and why. */
    String line() {
        StringBuilder b = new StringBuilder();
        b.append(String.format("%-7s %-34s %-28s reward=%s phase=%s", kind, name, mechanism, reward == null ? "-" : reward, phase));
        b.append(" naive=").append(naive == null ? "-" : naive.reward());
        if (verifySeconds != null) b.append(String.format(" grade=%.1fs", verifySeconds));
        if (integrity != null) b.append(" integrity=").append(integrity);
        if (!findings.isEmpty()) {
            b.append(" findings=");
            b.append(String.join(",", findings.stream().map(f -> f.detector() + "/" + f.severity()).distinct().toList()));
        }
        if (exploit() && rewarded()) b.append("  <- FORGED REWARD");
        if (!exploit() && !honestOk()) b.append("  <- HONEST NOT REWARDED");
        if (!exploit() && flagged) b.append("  <- FALSE ALARM");
        return b.toString();
    }
}
