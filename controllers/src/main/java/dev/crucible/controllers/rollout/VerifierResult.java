package dev.crucible.controllers.rollout;

import dev.crucible.contract.PhaseName;
import dev.crucible.controllers.common.PodLayout;
import dev.crucible.api.v1alpha1.common.HackFinding;
import dev.crucible.api.v1alpha1.rollout.TestCounts;
import dev.crucible.contract.VerifierResultJson;
import java.util.List;

/**
 * The verifier sidecar's result, read from its termination message by the contract's
 * {@link VerifierResultJson}, as the Rollout status types hold it. Parsing never throws: bad input is a
 * {@link Parsed#error()}.
 */
public record VerifierResult(Double reward, Double testReward, String verdict, TestCounts tests, List<HackFinding> hackFindings,
                             int countedFindings, Integer turns, PhaseName phase, String reason, String message, String report) {

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
        List<HackFinding> findings = r.hackFindings() == null ? null : r.hackFindings().stream().map(VerifierResult::finding).toList();
        return new Parsed(new VerifierResult(r.reward(), r.testReward(), r.verdict(), counts(r.tests()), findings,
                r.countedFindings(), r.turns(), PhaseName.valueOf(r.phase().name()), r.reason(), r.message(), r.report()), null);
    }

    private static HackFinding finding(VerifierResultJson.Finding f) {
        HackFinding h = new HackFinding();
        h.detector = f.detector();
        h.rule = f.rule();
        h.severity = f.severity();
        h.path = f.path();
        h.evidence = f.evidence();
        h.time = f.time();
        h.step = f.step();
        h.action = f.action();
        return h;
    }

    private static TestCounts counts(VerifierResultJson.Tests t) {
        if (t == null) return null;
        TestCounts c = new TestCounts();
        c.passed = t.passed();
        c.failed = t.failed();
        c.errors = t.errors();
        c.skipped = t.skipped();
        c.total = t.total();
        c.failToPassPassed = t.failToPassPassed();
        c.failToPassTotal = t.failToPassTotal();
        c.passToPassPassed = t.passToPassPassed();
        c.passToPassTotal = t.passToPassTotal();
        return c;
    }
}
