package dev.crucible.snapshot.freeze;

import dev.crucible.snapshot.target.ProcessRef;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thaws frozen trees whose agent cannot: a process of its own, so a SIGKILLed, OOM-killed or hung
 * agent JVM does not leave a rollout frozen until the agent comes back (issue 41, point 4).
 *
 * <p>Every journal entry is a lease on its freeze: the agent writes it (fsync) before freezing and
 * removes it after thawing. The lease is over when its owner (pid + start time) is gone, or when
 * its deadline plus {@code grace} has passed with the entry still there (the agent's own watchdog
 * fires at the deadline; past the grace the agent is hung). Then this process thaws the tree, and
 * keeps thawing it while it is found frozen again (a CRIU that outlived the agent re-freezes the
 * cgroup it found frozen when it exits). It only thaws: failing the snapshot, resuming GPU state and
 * removing the entry stay with the restarted agent's {@code Recovery}.
 *
 * <p>Bound: a dead agent's tree is thawed within {@code poll} plus one thaw (defaults: 200 ms;
 * measured in {@code FreezeLeaseWatchdogTest}); stated as at most 5 s. With {@code --agent} it
 * watches that agent's entries only and exits once the agent is gone and nothing of it is frozen
 * (the agent starts it so); without, it watches every entry, for running as a container of its own.
 */
public final class FreezeLeaseWatchdog {

    private static final Logger LOG = LoggerFactory.getLogger(FreezeLeaseWatchdog.class);
    /** Printed on start: the agent's log shows that a watchdog runs, and for whom. */
    public static final String STARTED = "freeze lease watchdog watching ";

    private final FreezeJournal journal;
    private final Path dir;
    private final ProcessRef agent;
    private final Duration grace;
    /** Entries (name@frozenAt) already reported, so each thaw is logged once, not once a poll. */
    private final Set<String> reported = new HashSet<>();

    public FreezeLeaseWatchdog(Path journalDir, ProcessRef agent, Duration grace) {
        this.dir = journalDir;
        this.journal = new FreezeJournal(journalDir);
        this.agent = agent;
        this.grace = grace;
    }

    /** Why the entry's lease is over, or empty while it holds. */
    Optional<String> expired(JournalEntry e, Instant now) {
        if (!e.ownerAlive()) {
            return Optional.of("agent pid " + e.agentPid() + " is gone");
        }
        // a GPU-suspend entry carries no freeze deadline yet (the tree is not frozen until the next entry)
        if (!"gpu-suspend".equals(e.phase()) && e.deadline() != null && now.isAfter(e.deadline().plus(grace))) {
            return Optional.of("freeze deadline " + e.deadline() + " passed " + grace.toMillis() + " ms ago and the agent did not thaw");
        }
        return Optional.empty();
    }

    /**
     * One pass: thaws every frozen tree whose lease is over. Returns how many of the watched entries
     * still need watching (frozen, or with a recorded CRIU still running).
     */
    public int pass() {
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        int pending = 0;
        for (JournalEntry e : journal.entries()) {
            if (agent != null && (e.agentPid() != agent.pid() || e.agentStartTime() != 0 && e.agentStartTime() != agent.startTime())) {
                continue; // another agent's lease (a restarted agent's watchdog watches it)
            }
            Optional<String> why = expired(e, Instant.now());
            boolean criuRunning = e.criu() != null && e.criu().alive();
            if (why.isEmpty()) {
                pending++;
                continue;
            }
            if (Freezer.isFrozen(e.handle()) && stillLeased(e)) {
                try {
                    Freezer.thaw(e.handle());
                    String key = e.name() + "@" + e.frozenAt();
                    if (reported.add(key)) {
                        LOG.warn("thawed " + e.name() + " (" + e.handle().kind()
                                + (e.handle().cgroupPath() == null ? "" : " " + e.handle().cgroupPath()) + "): " + why.get()
                                + "; frozen since " + e.frozenAt() + ", phase " + e.phase());
                    }
                } catch (RuntimeException ex) {
                    LOG.error("cannot thaw " + e.name() + ": " + ex.getMessage());
                    pending++;
                    continue;
                }
            }
            if (criuRunning || Freezer.isFrozen(e.handle())) {
                pending++;
            }
        }
        return pending;
    }

    /** Re-reads the entry right before a thaw: an entry the agent replaced or removed meanwhile is not ours to undo. */
    private boolean stillLeased(JournalEntry seen) {
        return journal.entries().stream().anyMatch(e -> e.name().equals(seen.name())
                && java.util.Objects.equals(e.frozenAt(), seen.frozenAt()) && java.util.Objects.equals(e.deadline(), seen.deadline()));
    }

    /** Polls until the watched agent is gone and nothing of it stays frozen (forever without one). */
    public void run(Duration poll) throws InterruptedException {
        while (true) {
            boolean agentGone = agent != null && !agent.alive();
            int pending = pass();
            if (agentGone && pending == 0) {
                LOG.info("agent " + agent.pid() + " is gone and none of its trees is frozen; watchdog exits");
                return;
            }
            Thread.sleep(poll.toMillis());
        }
    }

    /** {@code FreezeLeaseWatchdog --journal DIR [--agent PID:STARTTIME] [--poll-ms 200] [--grace-ms 2000]} */
    public static void main(String[] args) throws InterruptedException {
        Path journalDir = null;
        ProcessRef agent = null;
        long pollMs = 200;
        long graceMs = 2000;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--journal" -> journalDir = Path.of(args[i + 1]);
                case "--agent" -> {
                    String[] p = args[i + 1].split(":");
                    agent = new ProcessRef(Long.parseLong(p[0]), Long.parseLong(p[1]));
                }
                case "--poll-ms" -> pollMs = Long.parseLong(args[i + 1]);
                case "--grace-ms" -> graceMs = Long.parseLong(args[i + 1]);
                default -> {
                    System.err.println("freeze-watchdog: unknown option " + args[i]);
                    System.exit(2);
                }
            }
        }
        if (journalDir == null || args.length % 2 != 0) {
            System.err.println("usage: FreezeLeaseWatchdog --journal DIR [--agent PID:STARTTIME] [--poll-ms N] [--grace-ms N]");
            System.exit(2);
        }
        LOG.info(STARTED + (agent == null ? "every agent" : "agent " + agent.pid()) + " in " + journalDir
                + " (poll " + pollMs + " ms, grace " + graceMs + " ms), pid " + ProcessHandle.current().pid());
        new FreezeLeaseWatchdog(journalDir, agent, Duration.ofMillis(graceMs)).run(Duration.ofMillis(pollMs));
    }

    /** The JVM command line that runs this watchdog with the caller's classpath (small heap: it only reads JSON). */
    public static List<String> command(Path journalDir, ProcessRef agent) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return List.of(java, "-Xmx24m", "-Xss512k", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), FreezeLeaseWatchdog.class.getName(),
                "--journal", journalDir.toString(), "--agent", agent.pid() + ":" + agent.startTime());
    }
}
