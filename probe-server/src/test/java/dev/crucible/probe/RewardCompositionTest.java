package dev.crucible.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.data.Offset.offset;

import dev.crucible.probe.head.ProbeEnsemble;
import dev.crucible.probe.head.ProbeHead;
import dev.crucible.probe.reward.RewardComposition;
import java.util.List;
import org.junit.jupiter.api.Test;

class RewardCompositionTest {

    @Test
    void hardGateGivesTheRawLogitToValidTasksAndTheFloorToInvalidOnes() {
        RewardComposition r = RewardComposition.of("hard_gate", -3.0, null, null);
        assertThat(r.reward(2.5, true)).isEqualTo(2.5);
        assertThat(r.reward(-9.0, true)).isEqualTo(-9.0);   // no clipping: logits keep their range
        assertThat(r.reward(2.5, false)).isEqualTo(-3.0);
        assertThat(RewardComposition.of("hard_gate", null, null, null).reward(1, false)).isEqualTo(-5.0);
    }

    @Test
    void softGateClipsTheProbabilityOfValidTasks() {
        RewardComposition r = RewardComposition.of("soft-gate", -1.0, 0.1, 0.9);
        assertThat(r.reward(0.0, true)).isCloseTo(0.5, offset(1e-12));
        assertThat(r.reward(10.0, true)).isEqualTo(0.9);
        assertThat(r.reward(-10.0, true)).isEqualTo(0.1);
        assertThat(r.reward(1.0, true)).isCloseTo(ProbeHead.sigmoid(1.0), offset(1e-12));
        assertThat(r.reward(10.0, false)).isEqualTo(-1.0);
    }

    @Test
    void probeOnlyIgnoresValidity() {
        RewardComposition r = RewardComposition.of("probe_only", null, null, null);
        assertThat(r.reward(1.25, false)).isEqualTo(1.25);
        assertThat(r.reward(-4, true)).isEqualTo(-4);
    }

    @Test
    void worstCaseEnsembleIsTheMinimumAndMatchesMinOfRewards() {
        ProbeHead a = TestProbes.linear("a", 8, 1);
        ProbeHead b = TestProbes.linear("b", 8, 2);
        ProbeEnsemble e = new ProbeEnsemble(List.of(a, b));
        float[] x = {1, -2, 0.5f, 3, 0, 1, -1, 2};
        double[] logits = e.logits(x);
        assertThat(logits).containsExactly(a.logit(x), b.logit(x));
        double wc = ProbeEnsemble.worstCase(logits);
        assertThat(wc).isEqualTo(Math.min(a.logit(x), b.logit(x)));
        RewardComposition soft = RewardComposition.of("soft_gate", null, null, null);
        assertThat(soft.reward(wc, true)).isEqualTo(Math.min(soft.reward(logits[0], true), soft.reward(logits[1], true)));
    }

    @Test
    void badCompositionsAreRefusedByName() {
        assertThatThrownBy(() -> RewardComposition.of("best_of", null, null, null)).hasMessageContaining("best_of");
        assertThatThrownBy(() -> RewardComposition.of("soft_gate", null, 0.9, 0.1)).hasMessageContaining("clipLow");
        assertThatThrownBy(() -> new ProbeEnsemble(List.of(TestProbes.linear("a", 8, 1), TestProbes.linear("b", 9, 1))))
                .hasMessageContaining("input width");
    }
}
