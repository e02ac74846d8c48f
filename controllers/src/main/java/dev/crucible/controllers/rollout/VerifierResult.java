package dev.crucible.controllers.rollout;

import dev.crucible.contract.PhaseName;
import dev.crucible.controllers.common.PodLayout;
import dev.crucible.api.v1alpha1.common.HackFinding;
import dev.crucible.api.v1alpha1.rollout.TestCounts;
import dev.crucible.api.v1alpha1.rollout.TrajectoryKept;
import dev.crucible.contract.VerifierResultJson;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;

/**
 * The verifier sidecar's result, read from its termination message by the contract's
 * {@link VerifierResultJson}, as the Rollout status types hold it. Parsing never throws: bad input is a
 * {@link Parsed#error()}.
 */
public record VerifierResult(Double reward, Double testReward, String verdict, String integrity, TestCounts tests, List<HackFinding> hackFindings,
                             int countedFindings, Integer turns, PhaseName phase, String reason, String message, String report,
                             TrajectoryKept trajectory, VerifierResultJson.Facts facts) {

    // A newer sidecar may add fields the status types lack: they stay in the report, never wedge the reconcile.
    private static final ObjectMapper JSON = new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    /** Either a result or why there is none. */
    public record Parsed(VerifierResult result, String error) {
        public boolean ok() {
            return result != null;
        }
    }

    /** The contract's {@link VerifierResultJson#parse}, in the API's status types. */
    public static Parsed parse(String message) {
        VerifierResultJson.Parsed p = VerifierResultJson.parse(message);
        if (!p.ok()) {
            return new Parsed(null, message == null || message.isBlank()
                    ? p.error() + " to " + PodLayout.TERMINATION_LOG : p.error());
        }
        VerifierResultJson.Result r = p.result();
        List<HackFinding> findings = r.hackFindings() == null ? null : r.hackFindings().stream().map(f -> as(f, HackFinding.class)).toList();
        return new Parsed(new VerifierResult(r.reward(), r.testReward(), r.verdict(), r.integrity(), as(r.tests(), TestCounts.class), findings,
                r.countedFindings(), r.turns(), r.phase(), r.reason(), r.message(), r.report(), as(r.trajectory(), TrajectoryKept.class), r.facts()), null);
    }

    /** The contract's records and the status types carry the same field names: Jackson maps one onto the other. */
    private static <T> T as(Object value, Class<T> type) {
        return value == null ? null : JSON.convertValue(value, type);
    }
}
