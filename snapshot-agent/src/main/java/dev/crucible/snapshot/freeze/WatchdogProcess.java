package dev.crucible.snapshot.freeze;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's {@link FreezeLeaseWatchdog}, as a child JVM that outlives it: not killed with the
 * agent (no parent-death signal), its stdin /dev/null and stdout discarded so nothing ties it to the
 * agent's pipes, its log lines on the agent's stderr. {@link #ensureRunning} starts it again if it
 * died; {@link #close} stops it on an orderly shutdown (everything is thawed by then).
 */
public final class WatchdogProcess implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(WatchdogProcess.class);

    private final Path journalDir;
    private Process process;

    public WatchdogProcess(Path journalDir) {
        this.journalDir = journalDir;
    }

    public synchronized void ensureRunning() {
        if (process != null && process.isAlive()) {
            return;
        }
        if (process != null) {
            LOG.warn("freeze lease watchdog pid " + process.pid() + " exited (" + process.exitValue() + "); starting it again");
        }
        try {
            process = new ProcessBuilder(FreezeLeaseWatchdog.command(journalDir, JournalEntry.self()))
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
            LOG.info("freeze lease watchdog pid " + process.pid());
        } catch (IOException e) {
            LOG.error("cannot start the freeze lease watchdog: a crash of this agent would leave trees frozen until it restarts: "
                    + e.getMessage());
        }
    }

    public synchronized long pid() {
        return process == null ? -1 : process.pid();
    }

    @Override
    public synchronized void close() {
        if (process != null) {
            process.destroy();
            try {
                process.waitFor(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            process = null;
        }
    }
}
