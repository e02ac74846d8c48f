package dev.crucible.snapshot.client;

import dev.crucible.snapshot.client.api.CommitAction;
import dev.crucible.snapshot.client.api.DumpResult;
import dev.crucible.snapshot.client.api.PrepareResult;
import dev.crucible.snapshot.client.api.SnapshotRequest;
import dev.crucible.snapshot.client.store.Manifest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A consistent snapshot across several members (pods, possibly on several nodes): prepare all
 * (each ends frozen) → dump all in parallel → commit all. Any failure or timeout aborts every
 * member — those that froze are thawed — and the whole snapshot fails with the first reason.
 * The consistent-at time is when the last member reported frozen: from then until the first
 * commit, no member ran.
 */
public final class TwoPhaseSnapshot {

    /** One member: which agent, and what it should snapshot. */
    public record Member(String name, SnapshotAgentClient agent, SnapshotRequest request) {
    }

    /** @param gpuProcesses processes whose CUDA state was checkpointed with the member */
    /**
     * @param mode            "memory" or "disk": what a restore of this member brings back ({@link Manifest#mode()})
     * @param checkpointImage the container runtime's checkpoint image, when the runtime took the memory
     */
    public record MemberResult(String name, String snapshotId, String agent, long preDumpMs, long dumpMs,
                               long freezeWindowMs, long imageBytes, long workspaceBytes, int gpuProcesses, String mode,
                               String checkpointImage) {
    }

    /**
     * @param freezeWindowMs         the longest any member stayed frozen (what the workload felt)
     * @param coordinationOverheadMs that window minus the slowest member's own dump: what waiting
     *                               for the others and the extra round trips added (target ≤ 50 ms)
     */
    public record Result(Instant consistentAt, long freezeWindowMs, long wallMs, long coordinationOverheadMs,
                         List<MemberResult> members) {
    }

    public static final class Failed extends RuntimeException {
        public Failed(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private final Duration timeout;

    /** @param timeout how long the whole protocol (all three phases) may take before it aborts */
    public TwoPhaseSnapshot(Duration timeout) {
        this.timeout = timeout;
    }

    public Result run(List<Member> members, CommitAction action) {
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, members.size()));
        long t0 = System.nanoTime();
        long deadline = t0 + timeout.toNanos();
        try {
            List<PrepareResult> prepared = phase(pool, members, "prepare", m -> m.agent().prepare(m.request()), deadline);
            Instant consistentAt = prepared.stream().map(PrepareResult::frozenAt).max(Comparator.naturalOrder()).orElseThrow();
            List<DumpResult> dumped = phase(pool, members, "dump", m -> m.agent().dump(m.request().snapshotId()), deadline);
            List<Manifest> committed = phase(pool, members, "commit", m -> m.agent().commit(m.request().snapshotId(), action), deadline);
            long wallMs = (System.nanoTime() - t0) / 1_000_000;
            List<MemberResult> results = new ArrayList<>();
            long slowestDump = 0;
            long freezeWindow = 0;
            for (int i = 0; i < members.size(); i++) {
                Manifest m = committed.get(i);
                long pre = m.preDumpMs.stream().mapToLong(Long::longValue).sum();
                results.add(new MemberResult(members.get(i).name(), m.id, members.get(i).agent().base().toString(), pre,
                        dumped.get(i).dumpMs(), m.freezeWindowMs, m.imageBytes == null ? 0 : m.imageBytes,
                        m.workspaceBytes == null ? 0 : m.workspaceBytes, m.gpuNamespacePids.size(), m.mode(),
                        m.checkpointImage));
                freezeWindow = Math.max(freezeWindow, m.freezeWindowMs);
                slowestDump = Math.max(slowestDump, dumped.get(i).dumpMs() + dumped.get(i).workspaceMs());
            }
            long overhead = Math.max(0, freezeWindow - slowestDump);
            return new Result(consistentAt, freezeWindow, wallMs, overhead, results);
        } finally {
            // Not shutdownNow: a call cut off by a timeout must still return, so its member is aborted then.
            pool.shutdown();
        }
    }

    private <T> List<T> phase(ExecutorService pool, List<Member> members, String name, Function<Member, T> call,
                              long deadlineNanos) {
        List<CompletableFuture<T>> futures = new ArrayList<>();
        for (Member m : members) {
            futures.add(CompletableFuture.supplyAsync(() -> call.apply(m), pool));
        }
        try {
            long left = Math.max(0, deadlineNanos - System.nanoTime());
            CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(left, TimeUnit.NANOSECONDS);
        } catch (Exception e) {
            Throwable cause = firstFailure(futures, e);
            String reason = name + " failed: " + cause.getMessage();
            abortAll(members, reason, futures);
            throw new Failed("snapshot aborted on every member: " + reason, cause);
        }
        return futures.stream().map(CompletableFuture::join).toList();
    }

    private static Throwable firstFailure(List<? extends CompletableFuture<?>> futures, Exception fallback) {
        for (CompletableFuture<?> f : futures) {
            if (f.isCompletedExceptionally()) {
                try {
                    f.join();
                } catch (Exception e) {
                    return e.getCause() != null ? e.getCause() : e;
                }
            }
        }
        return fallback instanceof java.util.concurrent.TimeoutException
                ? new java.util.concurrent.TimeoutException("timed out") : fallback;
    }

    /**
     * Best effort on every member; an agent that never saw the snapshot answers 409/404, which is
     * fine. A member whose call is still running (a timeout) is aborted again when that call
     * returns: an abort that reached its agent before the prepare did must not leave it frozen
     * until the agent's watchdog.
     */
    private static void abortAll(List<Member> members, String reason, List<? extends CompletableFuture<?>> inFlight) {
        List<CompletableFuture<Void>> aborts = new ArrayList<>();
        for (int i = 0; i < members.size(); i++) {
            Member m = members.get(i);
            aborts.add(CompletableFuture.runAsync(() -> abortQuietly(m, reason)));
            CompletableFuture<?> call = inFlight.get(i);
            if (!call.isDone()) {
                call.whenComplete((r, e) -> abortQuietly(m, reason));
            }
        }
        CompletableFuture.allOf(aborts.toArray(CompletableFuture[]::new)).join();
    }

    private static void abortQuietly(Member m, String reason) {
        try {
            m.agent().abort(m.request().snapshotId(), reason);
        } catch (RuntimeException ignored) {
            // not in progress there, or unreachable: its own watchdog thaws it
        }
    }
}
