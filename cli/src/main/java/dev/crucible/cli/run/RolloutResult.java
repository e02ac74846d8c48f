package dev.crucible.cli.run;

import dev.crucible.contract.Verdict;
import dev.crucible.contract.PhaseName;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.monitor.Finding;
import java.util.List;

/**
 * {@code result.json} of one attempt. The top-level fields mirror Rollout status (phase, reason,
 * reward, testReward, verdict, tests, hackFindings, timings) so a local result reads like the cluster's:
 * {@code reward} is what to train on (floored by a counted finding), {@code testReward} the tests' own score;
 * {@code verifierReport} is the verifier's full answer, as /v1/verify returns it; {@code snapshots}
 * (snapshot-able runs) the attempt's snapshots left after pruning, {@code restoredFrom} the snapshot a
 * restored branch continued from; {@code execution} the one execution environment setup, agent and grading
 * ran with (prefix, PATH, variables, toolchains used and every substitution as a warning); {@code trajectory} what the
 * attempt's trajectory recorder stored in {@code trajectory/} beside it; {@code labels} the Rollout document's metadata.labels
 * (absent when it has none), what the console filters on. {@code hackFindings} and the report's are bounded by
 * {@link ResultFindings} ({@code findingsOmitted}: how many were left out; the trajectory has them all).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"rollout", "environment", "labels", "mode", "group", "attempt", "phase", "reason", "message", "reward", "testReward", "verdict", "flagged",
        "tests", "hackFindings", "findingsOmitted", "steps", "sandbox", "endpoint", "agent", "setup", "execution", "timings", "workspace", "restoredFrom", "snapshots",
        "trajectory", "verifierReport"})
public record RolloutResult(String rollout, String environment, String mode, String group, int attempt, PhaseName phase, String reason,
                            String message, Double reward, Double testReward, String verdict, Boolean flagged, VerifyReport.Tests tests,
                            List<Finding> hackFindings, Integer findingsOmitted, Integer steps, String sandbox, String endpoint, Agent agent, Setup setup,
                            Timings timings, String workspace, VerifyReport verifierReport, String restoredFrom,
                            List<SnapshotRef> snapshots, java.util.Map<String, Object> execution,
                            dev.crucible.trajectory.TrajectoryStatus trajectory, java.util.Map<String, String> labels) {

    /** This result with what the attempt's trajectory recorder stored ({@code complete: false} says it is not whole, and why). */
    public RolloutResult withTrajectory(dev.crucible.trajectory.TrajectoryStatus t) {
        return new RolloutResult(rollout, environment, mode, group, attempt, phase, reason, message, reward, testReward, verdict, flagged, tests,
                hackFindings, findingsOmitted, steps, sandbox, endpoint, agent, setup, timings, workspace, verifierReport, restoredFrom, snapshots, execution, t, labels);
    }

    /** A snapshot of this attempt still in the store when it ended ({@code crucible restore ID --out DIR} continues it). */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record SnapshotRef(String id, String takenAt, Long freezeWindowMs, String trigger) {}

    /** The agent process of an embedded rollout. {@code exitCode} is null when it was killed (deadline, policy, Ctrl-C). */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Agent(List<String> command, Integer exitCode, String log) {}

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Setup(int exitCode, boolean timedOut, long elapsedMs, String log) {}

    /** Wall-clock times (RFC 3339) of each phase change, and durations in milliseconds. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Timings(String startedAt, String runningAt, String verifyingAt, String finishedAt, Long setupMs, Long agentMs,
                          Long verifyMs, long totalMs) {}

    /** How many findings the attempt had, those left out of {@code hackFindings} included. */
    public int findingCount() { return (hackFindings == null ? 0 : hackFindings.size()) + (findingsOmitted == null ? 0 : findingsOmitted); }

    /** Solved: graded pass with no finding against it (what counts toward the solve rate). */
    public boolean solved() { return phase == PhaseName.Succeeded && Verdict.PASS.wire().equals(verdict); }
}
