package dev.crucible.cli.run;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The agent's process as a local attempt sees it: alive (zombies count as ended), its exit status, its tree's root. */
final class AgentProcesses {
    private AgentProcesses() {
    }

    /**
     * {@link #alive} counts a zombie as ended, but the JVM's reaper may not have collected it yet,
     * and {@code exitValue()} throws until it has: wait for that (it is a matter of milliseconds).
     */
    static int exitCodeOf(Process p) {
        try {
            if (p.waitFor(5, TimeUnit.SECONDS)) {
                return p.exitValue();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return -1;
    }

    static boolean alive(ProcessHandle p) {
        if (!p.isAlive()) return false;
        try {
            return dev.crucible.snapshot.target.ProcFs.state(p.pid()) != 'Z';
        } catch (RuntimeException gone) {
            return false;
        }
    }

    /** The restored agent is no child of ours: its PID 1 left the status in the attempt folder (-1 if it could not). */
    static int readExit(Path exitFile) {
        for (int i = 0; i < 20; i++) { // the shell writes it just before it exits; allow for the write to land
            try {
                String t = Files.readString(exitFile).trim();
                if (!t.isEmpty()) return Integer.parseInt(t);
            } catch (IOException | NumberFormatException e) {
                // not there yet
            }
            sleep(50);
        }
        return -1;
    }

    /** PID 1 of the agent's PID namespace: the only child of {@code unshare --fork}. */
    static long treeRoot(Process unshare) throws InterruptedException {
        for (int i = 0; i < 100; i++) {
            List<Long> kids = dev.crucible.snapshot.target.ProcFs.children(unshare.pid());
            if (!kids.isEmpty()) return kids.get(0);
            if (!unshare.isAlive()) break;
            Thread.sleep(20);
        }
        throw new IllegalStateException("unshare (pid " + unshare.pid() + ") started no agent process");
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
