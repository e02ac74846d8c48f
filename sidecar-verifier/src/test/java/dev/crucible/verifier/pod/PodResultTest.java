package dev.crucible.verifier.pod;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.monitor.Finding;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The pod's termination message: the contract's outcome, both rewards, and a finding count that survives the 4 KiB cut. */
class PodResultTest {
    private static VerifyReport report(String verdict, double reward, Double testReward, List<Finding> findings) {
        return new VerifyReport("env", reward, testReward, verdict, null, null, !findings.isEmpty(), "test-suite", "binary", null,
                new VerifyReport.Tests(4, 0, 0, 4, List.of()), null, findings, null, null);
    }

    private static Finding finding(String severity, int i) {
        return new Finding("detector-" + i, severity, "file-" + i + ".py", "x".repeat(300), "2026-01-01T00:00:00Z", -1, "flag");
    }

    @Test
    void aHackAtTheDeadlineIsHackedWithBothRewards() throws Exception {
        VerifyReport r = report("pass", 0.0, 1.0, List.of(finding("critical", 0)));
        JsonNode j = new ObjectMapper().readTree(PodResult.toJson(r, PodResult.outcome(r, true, 60, null, null), 0, null));
        assertThat(j.path("phase").asText()).isEqualTo("Hacked");
        assertThat(j.path("reason").asText()).isEqualTo("RewardHackDetected");
        assertThat(j.path("reward").asDouble()).isZero();
        assertThat(j.path("testReward").asDouble()).isEqualTo(1.0);
        assertThat(j.path("message").asText()).contains("1 reward-hack finding");
    }

    @Test
    void aPassingTreeGradedAtTheDeadlineIsTimedOutWithTheFloorReward() throws Exception {
        VerifyReport r = report("pass", 1.0, 1.0, List.of()); // the agent passed the tests, then ran on to the deadline
        JsonNode j = new ObjectMapper().readTree(PodResult.toJson(r, PodResult.outcome(r, true, 60, null, null), 0, null));
        assertThat(j.path("phase").asText()).isEqualTo("TimedOut");
        assertThat(j.path("reward").asDouble()).isZero(); // Reward.atEnd: as the local run reports it
        assertThat(j.path("testReward").asDouble()).isEqualTo(1.0);
        assertThat(j.path("verdict").asText()).isEqualTo("pass");
    }

    @Test
    void infoFindingsAreShownButDoNotCount() throws Exception {
        VerifyReport r = report("pass", 1.0, 1.0, List.of(finding("info", 0)));
        JsonNode j = new ObjectMapper().readTree(PodResult.toJson(r, PodResult.outcome(r, false, 60, 0, null), 0, null));
        assertThat(j.path("phase").asText()).isEqualTo("Succeeded");
        assertThat(j.path("countedFindings").asInt()).isZero();
        assertThat(j.path("hackFindings")).hasSize(1);
    }

    @Test
    void theCountSurvivesCuttingTheListToFit() throws Exception {
        List<Finding> many = new ArrayList<>();
        for (int i = 0; i < 40; i++) many.add(finding(i % 2 == 0 ? "high" : "info", i));
        VerifyReport r = report("pass", 0.0, 1.0, many);
        String json = PodResult.toJson(r, PodResult.outcome(r, false, 60, 0, null), 3, null);
        assertThat(json.getBytes(java.nio.charset.StandardCharsets.UTF_8).length).isLessThanOrEqualTo(PodResult.MAX_BYTES);
        JsonNode j = new ObjectMapper().readTree(json);
        assertThat(j.path("hackFindings").size()).isLessThan(40);
        assertThat(j.path("countedFindings").asInt()).isEqualTo(20);
        assertThat(j.path("phase").asText()).isEqualTo("Hacked");
    }

    @Test
    void noReportIsAVerificationFailureWithTheReason() throws Exception {
        JsonNode j = new ObjectMapper().readTree(PodResult.toJson(null, PodResult.outcome(null, false, 60, null, "no /v1/reset"), 0, "no /v1/reset"));
        assertThat(j.path("phase").asText()).isEqualTo("Failed");
        assertThat(j.path("reason").asText()).isEqualTo("VerificationFailed");
        assertThat(j.path("message").asText()).isEqualTo("no /v1/reset");
    }
}
