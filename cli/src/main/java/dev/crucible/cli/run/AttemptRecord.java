package dev.crucible.cli.run;

import dev.crucible.contract.TerminalOutcome;
import dev.crucible.cli.run.RunInputs.RolloutDoc;
import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.monitor.Finding;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * What happened in one local attempt, filled in as it goes by {@link LocalRollout} (and read by its
 * watcher threads, hence the volatile limit), and turned into its {@link AttemptOutcome} and result.json.
 */
final class AttemptRecord {
    String startedAt = Instant.now().toString();
    String runningAt;
    String verifyingAt;
    Long setupMs;
    Long agentMs;
    Long verifyMs;
    String sandboxName;
    String endpoint;
    RolloutResult.Setup setup;
    RolloutResult.Agent agent;
    String setupError;
    String refusal; // why the run was refused before its agent started (no sandbox), or null
    volatile boolean timedOut; // set by the attempt, or by its watchdog
    volatile String limitExceeded; // which resource limit ended the run (set by the sandbox's enforcement), or null
    Integer agentExit;
    VerifyReport report;
    String restoredFrom;

    /** The facts that decide the phase; {@code liveFindings} count only when grading left no report. */
    AttemptOutcome outcome(boolean interrupted, List<Finding> liveFindings) {
        return new AttemptOutcome(interrupted, setupError, timedOut, limitExceeded, agentExit, report, liveFindings, refusal);
    }

    /** result.json's content: the decision, the report's rewards and tests, and everything recorded above. */
    RolloutResult result(RolloutDoc doc, int attempt, TerminalOutcome d, List<Finding> findings, Integer steps, long totalMs,
                         Path workspace, List<RolloutResult.SnapshotRef> snapshots, Map<String, Object> execution) {
        VerifyReport r = report;
        return new RolloutResult(doc.name(), doc.environment().name(), doc.interactive() ? "interactive" : "embedded",
                doc.spec().group == null ? null : doc.spec().group.id, attempt, d.phase(), d.reason(), d.message(),
                r == null ? null : r.reward(), r == null ? null : r.testReward(), r == null ? null : r.verdict(), r == null ? null : r.flagged(),
                r == null ? null : r.tests(), findings, steps, sandboxName, endpoint, agent, setup,
                new RolloutResult.Timings(startedAt, runningAt, verifyingAt, Instant.now().toString(), setupMs, agentMs, verifyMs, totalMs),
                workspace == null ? null : workspace.toString(), r, restoredFrom, snapshots, execution, null);
    }
}
