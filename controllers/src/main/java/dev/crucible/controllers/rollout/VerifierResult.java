package dev.crucible.controllers.rollout;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.api.v1alpha1.common.HackFinding;
import dev.crucible.api.v1alpha1.rollout.RolloutPhase;
import dev.crucible.api.v1alpha1.rollout.TestCounts;
import dev.crucible.contract.FindingSeverity;
import java.util.ArrayList;
import java.util.List;

/**
 * The verifier sidecar's result, read from its termination message (the contract in
 * controllers/README.md). Parsing never throws: bad input is a {@link Parsed#error()}.
 */
public record VerifierResult(Double reward, Double testReward, String verdict, TestCounts tests, List<HackFinding> hackFindings,
                             int countedFindings, Integer turns, RolloutPhase phase, String reason, String message, String report) {

    /** Kubernetes keeps at most 4 KiB of a termination message; longer ones are cut. */
    public static final int MAX_BYTES = 4096;

    private static final ObjectMapper JSON = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    /** Either a result or why there is none. */
    public record Parsed(VerifierResult result, String error) {
        public boolean ok() {
            return result != null;
        }
    }

    public static Parsed parse(String message) {
        if (message == null || message.isBlank()) {
            return new Parsed(null, "the verifier wrote no result to " + RolloutPodBuilder.TERMINATION_LOG);
        }
        JsonNode root;
        try {
            root = JSON.readTree(message);
        } catch (Exception e) {
            return new Parsed(null, "the verifier result is not JSON" + (message.length() >= MAX_BYTES
                    ? " (it was cut at 4 KiB; keep the result short)" : "") + ": " + firstLine(e.getMessage()));
        }
        if (root == null || !root.isObject()) {
            return new Parsed(null, "the verifier result must be a JSON object");
        }
        try {
            Double reward = null;
            if (root.hasNonNull("reward")) {
                if (!root.get("reward").isNumber() || !Double.isFinite(root.get("reward").asDouble())) {
                    return new Parsed(null, "reward must be a finite number, got " + root.get("reward"));
                }
                reward = root.get("reward").asDouble();
            }
            Double testReward = null;
            if (root.hasNonNull("testReward")) {
                if (!root.get("testReward").isNumber() || !Double.isFinite(root.get("testReward").asDouble())) {
                    return new Parsed(null, "testReward must be a finite number, got " + root.get("testReward"));
                }
                testReward = root.get("testReward").asDouble();
            }
            String verdict = root.hasNonNull("verdict") ? root.get("verdict").asText() : null;
            TestCounts tests = root.hasNonNull("tests") ? JSON.treeToValue(root.get("tests"), TestCounts.class) : null;
            List<HackFinding> findings = new ArrayList<>();
            if (root.has("hackFindings") && root.get("hackFindings").isArray()) {
                for (JsonNode f : root.get("hackFindings")) {
                    findings.add(JSON.treeToValue(f, HackFinding.class));
                }
            }
            // the list may have been cut to fit 4 KiB; countedFindings, when present, is the whole count
            int counted = root.hasNonNull("countedFindings") && root.get("countedFindings").canConvertToInt()
                    ? root.get("countedFindings").asInt()
                    : FindingSeverity.counted(findings.stream().map(f -> f.severity).toList());
            Integer turns = root.hasNonNull("turns") && root.get("turns").canConvertToInt() ? root.get("turns").asInt() : null;
            RolloutPhase phase;
            if (root.hasNonNull("phase")) {
                try {
                    phase = RolloutPhase.valueOf(root.get("phase").asText());
                } catch (IllegalArgumentException e) {
                    return new Parsed(null, "phase must be Succeeded, Failed, Hacked or TimedOut, got " + root.get("phase"));
                }
                if (!phase.isTerminal()) {
                    return new Parsed(null, "phase must be Succeeded, Failed, Hacked or TimedOut, got " + phase);
                }
            } else {
                phase = null; // a custom verifier's: the phase is the contract's to decide from the facts (RolloutStateMachine.fromResult)
            }
            String reason = root.hasNonNull("reason") ? root.get("reason").asText() : null;
            String msg = root.hasNonNull("message") ? root.get("message").asText() : null;
            return new Parsed(new VerifierResult(reward, testReward, verdict, tests, findings.isEmpty() ? null : findings,
                    counted, turns, phase, reason, msg, message.strip()), null);
        } catch (Exception e) {
            return new Parsed(null, "the verifier result has a malformed field: " + firstLine(e.getMessage()));
        }
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
