package dev.crucible.controllers.rollout;

import dev.crucible.contract.PhaseName;
import dev.crucible.contract.VerifierResultJson;
import java.util.List;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class VerifierResultTest {

    @Test
    void parsesTheFullContract() {
        var parsed = VerifierResult.parse("""
                {"reward":1.0,"verdict":"pass","tests":{"passed":4,"failed":0,"skipped":0,"total":4,
                 "failToPassPassed":2,"failToPassTotal":2,"passToPassPassed":2,"passToPassTotal":2},
                 "hackFindings":[],"turns":17,"phase":"Succeeded","extra":"ignored"}""");
        assertThat(parsed.ok()).isTrue();
        var r = parsed.result();
        assertThat(r.reward()).isEqualTo(1.0);
        assertThat(r.verdict()).isEqualTo("pass");
        assertThat(r.tests().passed).isEqualTo(4);
        assertThat(r.tests().failToPassPassed).isEqualTo(2);
        assertThat(r.turns()).isEqualTo(17);
        assertThat(r.phase()).isEqualTo(PhaseName.Succeeded);
        assertThat(r.hackFindings()).isNull();
        assertThat(r.report()).startsWith("{\"reward\":1.0").contains("\"extra\":\"ignored\"");
    }

    @Test
    void everyFieldTheSidecarWritesReachesTheStatusTypes() {
        // What the sidecar writes through the contract, every field set: the operator must read all of it (a field
        // the status types lacked once left every real-node rollout in Verifying with a ReconcileError).
        var tests = new VerifierResultJson.Tests(3, 1, 0, 0, 4, 1, 1, 2, 3, 4);
        var finding = new VerifierResultJson.Finding("test-file-modified", "high", "r1", "tests/t.py", "sha256 changed",
                "2026-01-01T00:00:00Z", 3, "terminate");
        String written = VerifierResultJson.write(new VerifierResultJson.Result(PhaseName.Hacked, "HackDetected", 7, 0.0, 0.75,
                "partial", tests, 1, List.of(finding), null, "why", null, "isolated",
                new VerifierResultJson.Trajectory(false, 812L, "trace store: 507 full")));
        var parsed = VerifierResult.parse(written);
        assertThat(parsed.error()).isNull();
        var r = parsed.result();
        assertThat(r.integrity()).isEqualTo("isolated");
        assertThat(r.trajectory().complete).isFalse();
        assertThat(r.trajectory().events).isEqualTo(812L);
        assertThat(r.trajectory().problem).isEqualTo("trace store: 507 full");
        assertThat(r.tests().isolated).isEqualTo(4);
        assertThat(r.tests().passToPassTotal).isEqualTo(3);
        assertThat(r.testReward()).isEqualTo(0.75);
        assertThat(r.hackFindings()).singleElement().satisfies(f -> {
            assertThat(f.step).isEqualTo(3);
            assertThat(f.rule).isEqualTo("r1");
        });
    }

    @Test
    void aFieldTheStatusTypesDoNotKnowIsKeptInTheReportNotAnError() {
        var parsed = VerifierResult.parse("""
                {"reward":1.0,"verdict":"pass","tests":{"passed":1,"total":1,"fromANewerSidecar":7},"phase":"Succeeded"}""");
        assertThat(parsed.error()).isNull();
        assertThat(parsed.result().tests().passed).isEqualTo(1);
        assertThat(parsed.result().report()).contains("fromANewerSidecar");
    }

    @Test
    void hackFindingsComeThrough() {
        var r = VerifierResult.parse("""
                {"reward":0.0,"verdict":"fail","hackFindings":[{"detector":"protected-path-modified","severity":"high",
                 "path":"tests/test_ops.py","evidence":"sha256 changed","action":"terminate"}],"phase":"Hacked"}""").result();
        assertThat(r.phase()).isEqualTo(PhaseName.Hacked);
        assertThat(r.hackFindings()).singleElement().satisfies(f -> {
            assertThat(f.detector).isEqualTo("protected-path-modified");
            assertThat(f.path).isEqualTo("tests/test_ops.py");
            assertThat(f.action).isEqualTo("terminate");
        });
    }

    @Test
    void phaseIsDerivedWhenAbsent() {
        assertThat(VerifierResult.parse("{\"verdict\":\"pass\",\"reward\":1}").result().phase()).isEqualTo(PhaseName.Succeeded);
        // graded is Succeeded whatever the score (the contract's order); only no grade is Failed
        assertThat(VerifierResult.parse("{\"verdict\":\"fail\",\"reward\":0}").result().phase()).isEqualTo(PhaseName.Succeeded);
        assertThat(VerifierResult.parse("{\"verdict\":\"error\"}").result().phase()).isEqualTo(PhaseName.Failed);
        assertThat(VerifierResult.parse("{\"verdict\":\"fail\",\"hackFindings\":[{\"severity\":\"high\"}]}").result().phase())
                .isEqualTo(PhaseName.Hacked);
    }

    @Test
    void badInputIsAnErrorNotAnException() {
        assertThat(VerifierResult.parse("").error()).contains("no result");
        assertThat(VerifierResult.parse("{not json").error()).contains("not JSON");
        assertThat(VerifierResult.parse("[1]").error()).contains("JSON object");
        assertThat(VerifierResult.parse("{\"reward\":\"high\"}").error()).contains("reward");
        assertThat(VerifierResult.parse("{\"phase\":\"Running\"}").error()).contains("phase");
        assertThat(VerifierResult.parse("{\"tests\":{\"passed\":\"many\"}}").error()).contains("malformed");
    }
}
