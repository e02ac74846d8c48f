package dev.crucible.cli.run;

import dev.crucible.contract.VerifierResultJson;
import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.monitor.Finding;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The findings result.json holds, bounded by the contract's rule for findings that leave the host
 * ({@link VerifierResultJson#MAX_FINDINGS} of them, counted ones first, each evidence and path cut to
 * {@link VerifierResultJson#MAX_EVIDENCE} characters; {@code findingsOmitted} counts the rest). One finding quoting a
 * 17 MiB ref name twice made a 35.6 MB result.json, which the console then refused (hostred3 B1). The phase and reward
 * are decided from all findings before this cut; the trajectory keeps each one.
 */
record ResultFindings(List<Finding> kept, int omitted) {

    static ResultFindings of(List<Finding> all) {
        if (all == null) return new ResultFindings(null, 0);
        List<Finding> order = new ArrayList<>(all);
        if (order.size() > VerifierResultJson.MAX_FINDINGS) order.sort(Comparator.comparing(f -> !f.isHack())); // stable: counted first
        List<Finding> kept = new ArrayList<>();
        for (Finding f : order.subList(0, Math.min(order.size(), VerifierResultJson.MAX_FINDINGS))) kept.add(cut(f));
        return new ResultFindings(List.copyOf(kept), all.size() - kept.size());
    }

    static Finding cut(Finding f) {
        return new Finding(f.detector(), f.severity(), VerifierResultJson.cutEvidence(f.path()), VerifierResultJson.cutEvidence(f.evidence()),
                f.time(), f.step(), f.action(), f.rule());
    }

    /** The verifier's report with its findings bounded the same way (result.json's {@code verifierReport}). */
    static VerifyReport bounded(VerifyReport r) {
        if (r == null || r.hackFindings() == null) return r;
        return new VerifyReport(r.environment(), r.reward(), r.testReward(), r.verdict(), r.category(), r.reason(), r.flagged(), r.type(),
                r.rewardMode(), r.partialCredit(), r.tests(), r.details(), of(r.hackFindings()).kept(), r.tamper(), r.timings());
    }
}
