package dev.crucible.cli.integrity;

import java.util.List;

/**
 * The bench's counts, and the last line it prints (its format is a contract: scripts and the judges parse it; fields are only
 * ever added at its end). {@code isolated}: runs whose reward the isolated oracle graded split, of {@code graded} runs with a
 * pytest grade (issue 33).
 */
public record BenchTally(int honestOk, int honest, int honestFlagged, int exploitsZeroReward, int exploits, int exploitsFlagged,
                         int exploitsBeating, int naiveBeating, int isolated, int graded) {

    static BenchTally of(List<AgentOutcome> outcomes) {
        List<AgentOutcome> ex = outcomes.stream().filter(AgentOutcome::exploit).toList();
        List<AgentOutcome> ho = outcomes.stream().filter(o -> !o.exploit()).toList();
        return new BenchTally((int) ho.stream().filter(AgentOutcome::honestOk).count(), ho.size(),
                (int) ho.stream().filter(AgentOutcome::flagged).count(),
                (int) ex.stream().filter(o -> !o.rewarded()).count(), ex.size(),
                (int) ex.stream().filter(AgentOutcome::flagged).count(),
                (int) ex.stream().filter(AgentOutcome::rewarded).count(),
                (int) ex.stream().filter(AgentOutcome::naiveRewarded).count(),
                (int) outcomes.stream().filter(AgentOutcome::isolated).count(),
                (int) outcomes.stream().filter(o -> o.integrity() != null).count());
    }

    public String line() {
        return "honest_ok=" + honestOk + "/" + honest + " honest_flagged=" + honestFlagged + " exploits_zero_reward=" + exploitsZeroReward
                + "/" + exploits + " exploits_flagged=" + exploitsFlagged + "/" + exploits + " exploits_beating=" + exploitsBeating
                + " naive_beating=" + naiveBeating
                + " isolated_share=" + (graded == 0 ? "-" : String.format(java.util.Locale.ROOT, "%.2f", (double) isolated / graded)) + "(" + isolated + "/" + graded + ")";
    }
}
