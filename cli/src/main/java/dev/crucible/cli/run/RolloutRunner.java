package dev.crucible.cli.run;

import dev.crucible.contract.OutcomeReasons;
import dev.crucible.cli.run.RunInputs.RolloutDoc;
import dev.crucible.verifier.Json;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * Runs rollouts × attempts, {@code parallel} at a time, each in its own folder under {@code out},
 * and writes {@code summary.json} when there is more than one. A JVM shutdown hook turns Ctrl-C and
 * SIGTERM into a clean stop: every running agent is killed and every result still written before exit
 * (reason Interrupted); an attempt whose thread does not end in time is abandoned (result written, sandbox
 * and state folder removed), and the boxes this process still holds are swept. A slot is free again once
 * an attempt's result is written, even when its thread is stuck (see {@link AttemptWatchdog}).
 */
public final class RolloutRunner {
    /** What ran: the results in plan order, grouped by rollout. */
    public record Outcome(Map<RolloutDoc, List<RolloutResult>> results, List<GroupSummary> groups, boolean interrupted, Path summary) {
        public List<RolloutResult> all() { return results.values().stream().flatMap(List::stream).toList(); }
    }

    private record Job(RolloutDoc doc, int attempt, AttemptDir dir, LocalRollout rollout) {}

    private final PrintWriter out;
    private final AttemptOptions options;

    public RolloutRunner(PrintWriter out, AttemptOptions options) {
        this.out = out;
        this.options = options;
        quietLogging();
    }

    /**
     * The libraries below (Vert.x, the schema validator) bring slf4j-api without a provider, whose
     * three-line warning would interleave with progress; call before anything logs.
     */
    public static void quietLogging() {
        if (System.getProperty("slf4j.internal.verbosity") == null) System.setProperty("slf4j.internal.verbosity", "ERROR");
    }

    /** The folder of one attempt: OUT itself for a single run, OUT/ROLLOUT and /attempt-N below it when there are several. */
    public static AttemptDir dirFor(Path out, List<RolloutDoc> rollouts, RolloutDoc doc, int attempts, int attempt) {
        Path d = rollouts.size() > 1 ? out.resolve(doc.name()) : out;
        return new AttemptDir(attempts > 1 ? d.resolve("attempt-" + attempt) : d);
    }

    public Outcome run(List<RolloutDoc> rollouts, int attempts, int parallel, Path out) throws InterruptedException {
        List<Job> jobs = new ArrayList<>();
        for (RolloutDoc doc : rollouts) {
            for (int i = 0; i < attempts; i++) {
                AttemptDir dir = dirFor(out, rollouts, doc, attempts, i);
                String label = doc.name() + (attempts > 1 ? "#" + i : "");
                jobs.add(new Job(doc, i, dir, new LocalRollout(doc, i, dir, options, new Progress(this.out, label))));
            }
        }
        CountDownLatch written = new CountDownLatch(1);
        boolean[] interrupted = {false};
        Interruption.recordSignals();
        // the empty box cgroups of runs killed with SIGKILL (no hook ran): theirs only, once their CLI is gone
        List<Path> stale = LeftoverBoxes.sweepDead(LeftoverBoxes.ROOT, java.time.Duration.ofSeconds(10));
        if (!stale.isEmpty()) {
            this.out.println("crucible: removed " + stale.size() + " empty cgroup" + (stale.size() == 1 ? "" : "s") + " of runs that are gone (first "
                    + stale.get(0) + ")");
        }
        // their state folders on the host's disk (runs without a volume): named for their CLI's pid and start time
        List<Path> states = StaleStateFolders.sweep(Path.of(System.getProperty("java.io.tmpdir")), java.time.Duration.ofSeconds(10));
        if (!states.isEmpty()) {
            this.out.println("crucible: removed " + states.size() + " state folder" + (states.size() == 1 ? "" : "s") + " of runs that are gone (first "
                    + states.get(0) + ")");
        }
        Thread hook = new Thread(() -> {
            interrupted[0] = true;
            Interruption.stopping = true; // before cancel: the cleanups it starts take the short bound
            synchronized (this.out) {
                this.out.println("crucible: " + (Interruption.received == null ? "" : Interruption.received + " received; ")
                        + "interrupted: stopping the agents and writing results ...");
                this.out.flush();
            }
            jobs.forEach(j -> j.rollout().cancel());
            Interruption.await(jobs.stream().map(Job::rollout).toList(), written, this.out);
        }, "crucible-run-interrupt");
        Runtime.getRuntime().addShutdownHook(hook);
        AttemptScratch.closeAfter(written);
        Dispatcher dispatcher = new Dispatcher(Math.max(1, Math.min(parallel, jobs.size())));
        try {
            List<java.util.concurrent.CompletableFuture<RolloutResult>> futures = new ArrayList<>();
            for (Job j : jobs) futures.add(j.rollout().outcome());
            dispatcher.start(jobs.stream().map(Job::rollout).toList());
            Map<RolloutDoc, List<RolloutResult>> results = new LinkedHashMap<>();
            Map<RolloutDoc, List<AttemptDir>> dirs = new LinkedHashMap<>();
            for (int i = 0; i < jobs.size(); i++) {
                RolloutResult r;
                try {
                    r = futures.get(i).get();
                } catch (java.util.concurrent.ExecutionException e) {
                    throw new IllegalStateException("a rollout crashed: " + e.getCause(), e.getCause()); // run() never throws
                }
                results.computeIfAbsent(jobs.get(i).doc(), k -> new ArrayList<>()).add(r);
                dirs.computeIfAbsent(jobs.get(i).doc(), k -> new ArrayList<>()).add(jobs.get(i).dir());
            }
            // an abandoned attempt's thread is stuck in the episode, whose boxes (an early grading interpreter, a graded command) it never closes
            if (dispatcher.anyStuck()) LeftoverBoxes.sweep(ProcessHandle.current().pid());
            List<GroupSummary> groups = new ArrayList<>();
            results.forEach((doc, rs) -> groups.add(GroupSummary.of(doc, rs, dirs.get(doc))));
            Path summary = null;
            if (jobs.size() > 1) summary = writeSummary(out, groups);
            return new Outcome(results, groups, interrupted[0] || results.values().stream().flatMap(List::stream)
                    .anyMatch(r -> OutcomeReasons.INTERRUPTED.equals(r.reason())), summary);
        } finally {
            dispatcher.stop();
            written.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running: it waited for `written`, which is now released
            }
        }
    }

    private Path writeSummary(Path out, List<GroupSummary> groups) {
        Path file = out.resolve("summary.json");
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("attempts", groups.stream().mapToInt(GroupSummary::attempts).sum());
        doc.put("solved", groups.stream().mapToInt(GroupSummary::solved).sum());
        doc.put("rollouts", groups);
        try {
            Files.createDirectories(out);
            dev.crucible.files.OutputFolder.replace(file, Json.write(doc, true) + "\n");
        } catch (IOException e) {
            synchronized (this.out) {
                this.out.println("crucible: could not write " + file + ": " + e.getMessage());
            }
        }
        return file;
    }
}
