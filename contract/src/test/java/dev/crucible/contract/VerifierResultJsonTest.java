package dev.crucible.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class VerifierResultJsonTest {

    private static VerifierResultJson.Result result(List<VerifierResultJson.Finding> findings, String message) {
        return new VerifierResultJson.Result(PhaseName.Hacked, OutcomeReasons.HACK_DETECTED, 7, 0.0, 1.0, "fail",
                VerifierResultJson.Tests.of(3, 1, 0, 4), FindingSeverity.counted(findings.stream()
                .map(VerifierResultJson.Finding::severity).toList()), findings, null, message, null);
    }

    private static VerifierResultJson.Finding finding(int i, String severity, String evidence) {
        return new VerifierResultJson.Finding("protected-path-modified", severity, null, "tests/t" + i + ".py", evidence,
                "2026-11-28T03:00:00Z", i, "flag");
    }

    @Test
    void whatIsWrittenParsesBackToTheSameResult() {
        var written = result(List.of(finding(0, "high", "sha256 changed"), finding(1, "info", "read")), "two findings");
        String json = VerifierResultJson.write(written);
        var parsed = VerifierResultJson.parse(json);
        assertThat(parsed.error()).isNull();
        var r = parsed.result();
        assertThat(r.phase()).isEqualTo(PhaseName.Hacked);
        assertThat(r.reason()).isEqualTo(OutcomeReasons.HACK_DETECTED);
        assertThat(r.turns()).isEqualTo(7);
        assertThat(r.reward()).isEqualTo(0.0);
        assertThat(r.testReward()).isEqualTo(1.0);
        assertThat(r.tests()).isEqualTo(VerifierResultJson.Tests.of(3, 1, 0, 4));
        assertThat(r.hackFindings()).containsExactlyElementsOf(written.hackFindings());
        assertThat(r.countedFindings()).isEqualTo(1);
        assertThat(r.message()).isEqualTo("two findings");
        assertThat(r.report()).isEqualTo(json);
    }

    @Test
    void theIsolatedOraclesLabelRoundTripsAndAnOlderResultHasNone() {
        var written = result(List.of(), "graded").withIntegrity("isolated");
        var tests = new VerifierResultJson.Tests(3, 0, null, 0, 3, null, null, null, null).withIsolated(3);
        written = new VerifierResultJson.Result(written.phase(), written.reason(), written.turns(), written.reward(), written.testReward(),
                written.verdict(), tests, written.countedFindings(), written.hackFindings(), null, written.message(), null, "isolated");
        var r = VerifierResultJson.parse(VerifierResultJson.write(written)).result();
        assertThat(r.integrity()).isEqualTo("isolated");
        assertThat(r.tests().isolated()).isEqualTo(3);
        assertThat(VerifierResultJson.parse("{\"verdict\":\"pass\",\"reward\":1}").result().integrity()).isNull();
        assertThat(VerifierResultJson.parse("{\"verdict\":\"pass\",\"integrity\":\"sure\"}").error()).contains("integrity must be isolated or in-process");
    }

    @Test
    void whatWasKeptOfTheTrajectoryRoundTripsAndItsProblemIsCut() {
        var written = result(List.of(), "graded").withTrajectory(new VerifierResultJson.Trajectory(false, 12L, "trace store: " + "x".repeat(500)));
        var r = VerifierResultJson.parse(VerifierResultJson.write(written)).result();
        assertThat(r.trajectory().complete()).isFalse();
        assertThat(r.trajectory().events()).isEqualTo(12L);
        assertThat(r.trajectory().problem()).startsWith("trace store: ").hasSizeLessThan(200);
        assertThat(r.integrity()).as("withTrajectory keeps the other fields").isNull();
        assertThat(VerifierResultJson.parse("{\"verdict\":\"pass\"}").result().trajectory()).isNull();
        assertThat(VerifierResultJson.parse("{\"trajectory\":{\"events\":\"many\"}}").error()).contains("malformed field trajectory.events");
    }

    @Test
    void aLongResultIsCutToFourKibAndKeepsTheWholeCount() {
        List<VerifierResultJson.Finding> many = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            many.add(finding(i, "high", "x".repeat(1000)));
        }
        String json = VerifierResultJson.write(result(many, "m".repeat(5000)));
        assertThat(json.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(VerifierResultJson.MAX_BYTES);
        var r = VerifierResultJson.parse(json).result();
        assertThat(r.countedFindings()).isEqualTo(200);
        assertThat(r.hackFindings().size() + r.findingsOmitted()).isEqualTo(200);
        assertThat(r.hackFindings().get(0).evidence()).hasSize(VerifierResultJson.MAX_EVIDENCE + 1);
        assertThat(r.message()).hasSize(VerifierResultJson.MAX_MESSAGE + 1);
        assertThat(r.phase()).isEqualTo(PhaseName.Hacked);
    }

    /**
     * The kubelet keeps 12 KiB of termination messages per pod, split over its containers (init ones too): a rollout
     * pod of five keeps 2457 bytes of each. The 4 KiB cut alone left a Hacked result with many findings cut
     * mid-string there (the operator read "not JSON", RealNodeTest's exploit rollout).
     */
    @Test
    void aResultFitsItsPodsShareOfTheKubeletsBudget() {
        assertThat(VerifierResultJson.podBudget(5)).isEqualTo(2457);
        assertThat(VerifierResultJson.podBudget(2)).isEqualTo(VerifierResultJson.MAX_BYTES);
        List<VerifierResultJson.Finding> many = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            many.add(finding(i, "high", "x".repeat(1000)));
        }
        VerifierResultJson.Result result = result(many, "m".repeat(5000));
        assertThat(VerifierResultJson.write(result).getBytes(StandardCharsets.UTF_8).length).as("the 4 KiB cut alone")
                .isGreaterThan(VerifierResultJson.podBudget(5));
        String json = VerifierResultJson.write(result, VerifierResultJson.podBudget(5));
        assertThat(json.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(VerifierResultJson.podBudget(5));
        var r = VerifierResultJson.parse(json).result();
        assertThat(r.countedFindings()).isEqualTo(12);
        assertThat(r.hackFindings().size() + r.findingsOmitted()).isEqualTo(12);
    }

    @Test
    void aMissingPhaseIsDecidedByTheContractsOrder() {
        assertThat(VerifierResultJson.parse("{\"verdict\":\"pass\",\"reward\":1}").result().phase()).isEqualTo(PhaseName.Succeeded);
        assertThat(VerifierResultJson.parse("{\"verdict\":\"fail\",\"reward\":0}").result().phase()).isEqualTo(PhaseName.Succeeded);
        assertThat(VerifierResultJson.parse("{\"verdict\":\"error\"}").result().phase()).isEqualTo(PhaseName.Failed);
        assertThat(VerifierResultJson.parse("{}").result().phase()).isEqualTo(PhaseName.Failed);
        assertThat(VerifierResultJson.parse("{\"verdict\":\"pass\",\"hackFindings\":[{\"severity\":\"medium\"}]}")
                .result().phase()).isEqualTo(PhaseName.Hacked);
        assertThat(VerifierResultJson.parse("{\"verdict\":\"pass\",\"hackFindings\":[{\"severity\":\"info\"}]}")
                .result().phase()).isEqualTo(PhaseName.Succeeded);
    }

    @Test
    void badInputIsAnErrorThatNamesTheField() {
        assertThat(VerifierResultJson.parse(null).error()).contains("no result");
        assertThat(VerifierResultJson.parse("{not json").error()).contains("not JSON");
        assertThat(VerifierResultJson.parse("{\"x\":\"" + "y".repeat(5000)).error()).contains("cut at 4 KiB");
        assertThat(VerifierResultJson.parse("[1]").error()).contains("JSON object");
        assertThat(VerifierResultJson.parse("{\"reward\":\"high\"}").error()).startsWith("reward must be a finite number");
        assertThat(VerifierResultJson.parse("{\"testReward\":\"NaN\"}").error()).startsWith("testReward");
        assertThat(VerifierResultJson.parse("{\"phase\":\"Running\"}").error()).contains("phase must be");
        assertThat(VerifierResultJson.parse("{\"phase\":\"Won\"}").error()).contains("phase must be");
        assertThat(VerifierResultJson.parse("{\"tests\":{\"passed\":\"many\"}}").error()).contains("malformed field tests.passed");
        assertThat(VerifierResultJson.parse("{\"hackFindings\":[{},{\"step\":\"two\"}]}").error()).contains("hackFindings[1].step");
    }
}
