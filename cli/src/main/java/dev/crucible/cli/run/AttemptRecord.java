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
    volatile String abandonedWhy; // the watchdog's reason when it ended the attempt (its thread stuck, or grading past its bound)
    volatile String limitExceeded; // which resource limit ended the run (set by the sandbox's enforcement), or null
    volatile String limitLikely; // a limit held only inside the box (rlimit) that the agent likely met: a note in the message, never a reason
    Integer agentExit;
    VerifyReport report;
    String restoredFrom;

    /** The facts that decide the phase; {@code liveFindings} count only when grading left no report. */
    AttemptOutcome outcome(boolean interrupted, List<Finding> liveFindings) {
        return new AttemptOutcome(interrupted, setupError, timedOut, limitExceeded, agentExit, report, liveFindings, refusal);
    }

    /**
     * The decision's message says what really ended the attempt: a watchdog that ended it (grading past its bound, host
     * round 4 B1: 2,500 .py files) said "ran past limits.maxDurationSeconds; its agent was stopped" though the agent had
     * exited long before and the deadline was not what stopped it; an interruption names its signal and phase. A limit the agent
     * likely met inside the box (RLIMIT_AS, RLIMIT_NPROC: its allocation or fork refused, exit 1 or 2) is said after it.
     */
    TerminalOutcome explain(TerminalOutcome d, dev.crucible.contract.PhaseName phaseAtStop) {
        TerminalOutcome e = because(d, phaseAtStop);
        return limitLikely == null || limitExceeded != null ? e : new TerminalOutcome(e.phase(), e.reason(), e.message() + "; " + limitLikely);
    }

    private TerminalOutcome because(TerminalOutcome d, dev.crucible.contract.PhaseName phaseAtStop) {
        if (dev.crucible.contract.OutcomeReasons.INTERRUPTED.equals(d.reason())) return new TerminalOutcome(d.phase(), d.reason(), Interruption.message(d.message(), phaseAtStop));
        if (abandonedWhy != null && dev.crucible.contract.OutcomeReasons.DEADLINE_EXCEEDED.equals(d.reason())) {
            return new TerminalOutcome(d.phase(), d.reason(), "ended by the " + abandonedWhy.replace(": the attempt ends now", "") + "; no grade was recorded");
        }
        return d;
    }

    /** TimedOut pays the floor (contract Reward.atEnd), also when the attempt ended before grading reported anything. */
    private static Double reward(RolloutDoc doc, TerminalOutcome d, VerifyReport r) {
        if (r != null) return dev.crucible.contract.Reward.atEnd(d.phase(), r.reward(), r.rewardMode());
        return d.phase() == dev.crucible.contract.PhaseName.TimedOut ? doc.environment().verifierEnv().verifier().mode().floor() : null;
    }

    /** result.json's content: the decision, the report's rewards and tests, and everything recorded above. */
    RolloutResult result(RolloutDoc doc, int attempt, TerminalOutcome d, List<Finding> findings, Integer steps, long totalMs,
                         Path workspace, List<RolloutResult.SnapshotRef> snapshots, Map<String, Object> execution) {
        VerifyReport r = report;
        ResultFindings f = ResultFindings.of(findings);
        return new RolloutResult(doc.name(), doc.environment().name(), doc.interactive() ? "interactive" : "embedded",
                doc.spec().group == null ? null : doc.spec().group.id, attempt, d.phase(), d.reason(), d.message(),
                reward(doc, d, r), r == null ? null : r.testReward(), r == null ? null : r.verdict(), r == null ? null : r.flagged(),
                r == null ? null : r.tests(), f.kept(), f.omitted() > 0 ? f.omitted() : null, steps, sandboxName, endpoint, agent, setup,
                new RolloutResult.Timings(startedAt, runningAt, verifyingAt, Instant.now().toString(), setupMs, agentMs, verifyMs, totalMs),
                workspace == null ? null : workspace.toString(), ResultFindings.bounded(r), restoredFrom, snapshots, execution, null,
                doc.labels() == null || doc.labels().isEmpty() ? null : doc.labels());
    }

    /** A limit of the host side's own (its stack, its heap) that the agent's files reached, as the error result.json names. */
    static IllegalStateException hostLimit(Error e) {
        return new IllegalStateException(e instanceof StackOverflowError ? "the host side overflowed its stack on the agent's files"
                : "the host side ran out of memory on the agent's files (Java heap " + Runtime.getRuntime().maxMemory() / (1 << 20)
                        + " MiB: raise it with -Xmx, or CRUCIBLE_JAVA_OPTS for ./crucible)", e);
    }

    /**
     * result.json when the attempt's thread ended without one: {@code finish} itself failed, out of memory while other threads
     * (the monitor's scan, the boxes' watchers) held the heap ({@code outOfMemory}), or another error of the host's. The outcome alone, no grade; null when even this could not be written.
     */
    RolloutResult lastResort(RolloutDoc doc, int attempt, long totalMs, Path workspace, AttemptDir dir, boolean outOfMemory) {
        try {
            TerminalOutcome d = new TerminalOutcome(dev.crucible.contract.PhaseName.Failed, "LocalRunError", outOfMemory ? hostLimit(new OutOfMemoryError()).getMessage()
                    : "the attempt ended without a result: the host side failed while writing it (the CLI's output says how)");
            RolloutResult r = result(doc, attempt, d, List.of(), null, totalMs, workspace, List.of(), null);
            return dir.writeResult(r) == null ? r : null;
        } catch (Throwable e) {
            return null;
        }
    }
}
