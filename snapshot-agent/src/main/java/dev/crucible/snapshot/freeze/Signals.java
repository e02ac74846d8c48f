package dev.crucible.snapshot.freeze;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Sends signals through /bin/kill: the JDK can only send SIGTERM and SIGKILL to arbitrary pids. */
public final class Signals {

    private Signals() {
    }

    /** Returns true when kill exited 0 (every pid got the signal). */
    public static boolean send(String signal, Collection<Long> pids) {
        if (pids.isEmpty()) {
            return true;
        }
        List<String> cmd = new ArrayList<>(List.of("kill", "-s", signal));
        pids.forEach(p -> cmd.add(Long.toString(p)));
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return false;
            }
            return p.exitValue() == 0;
        } catch (IOException e) {
            throw new FreezeException("cannot run kill: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
