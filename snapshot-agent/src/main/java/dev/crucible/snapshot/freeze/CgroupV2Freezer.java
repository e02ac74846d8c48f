package dev.crucible.snapshot.freeze;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * The cgroup v2 freezer: write cgroup.freeze, then wait until cgroup.events says "frozen 1".
 * Preferred over SIGSTOP: it is invisible to the tasks (no SIGCHLD to parents, no 'T' state
 * recorded by CRIU), and it reaches tasks sleeping in the kernel.
 */
public final class CgroupV2Freezer {

    private CgroupV2Freezer() {
    }

    public static void freeze(Path cgroup, Duration timeout) {
        write(cgroup, "1");
        if (!awaitFrozen(cgroup, true, timeout)) {
            write(cgroup, "0"); // never leave a half-frozen cgroup behind
            throw new FreezeException("cgroup " + cgroup + " did not report 'frozen 1' within " + timeout.toMillis() + " ms");
        }
    }

    public static void thaw(Path cgroup) {
        if (!Files.exists(cgroup.resolve("cgroup.freeze"))) {
            return; // cgroup gone (tree exited and was cleaned up): nothing is frozen
        }
        write(cgroup, "0");
        awaitFrozen(cgroup, false, Duration.ofSeconds(2));
    }

    public static boolean isFrozen(Path cgroup) {
        try {
            for (String line : Files.readAllLines(cgroup.resolve("cgroup.events"))) {
                if (line.startsWith("frozen ")) {
                    return line.endsWith("1");
                }
            }
        } catch (IOException e) {
            return false;
        }
        return false;
    }

    private static boolean awaitFrozen(Path cgroup, boolean want, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long pause = 50_000; // start at 50 µs: freezing an idle tree takes well under a millisecond
        while (isFrozen(cgroup) != want) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            LockSupport.parkNanos(pause);
            pause = Math.min(pause * 2, 5_000_000);
        }
        return true;
    }

    private static void write(Path cgroup, String value) {
        try {
            Files.writeString(cgroup.resolve("cgroup.freeze"), value);
        } catch (IOException e) {
            throw new FreezeException("cannot write " + value + " to " + cgroup.resolve("cgroup.freeze") + ": " + e.getMessage(), e);
        }
    }
}
