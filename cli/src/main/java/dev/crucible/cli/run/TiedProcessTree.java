package dev.crucible.cli.run;

import dev.crucible.verifier.sandbox.Box;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A command whose whole process tree ends with this CLI, even on SIGKILL, which runs no hook: {@code setpriv --pdeathsig
 * KILL} ends the direct child when this process dies, and that child is {@code unshare --pid --fork --kill-child}, whose
 * end kills pid 1 of a new PID namespace and with it every process the command started. For setup, which runs outside the
 * box as the CLI's user: a SIGKILLed run as root left setup's {@code sleep 300} under init, and the next run set the
 * prefix up again while the orphan still wrote into it (host round 8, cases 26 and 27). Root only (a PID namespace needs
 * CAP_SYS_ADMIN); where a tool or the namespace is refused, the command runs as it is.
 */
final class TiedProcessTree {
    private static final String SETPRIV = "/usr/bin/setpriv";
    private static final String UNSHARE = "/usr/bin/unshare";
    private static final List<String> PREFIX = List.of(SETPRIV, "--pdeathsig", "KILL", UNSHARE, "--pid", "--fork", "--kill-child");
    private static volatile Boolean works;

    private TiedProcessTree() {}

    /** {@code argv} tied to this process, or as it is where that cannot be had. */
    static List<String> wrap(List<String> argv) {
        if (!available()) return argv;
        List<String> out = new ArrayList<>(PREFIX);
        out.addAll(argv);
        return out;
    }

    static boolean available() {
        Boolean w = works;
        if (w == null) works = w = probe();
        return w;
    }

    private static boolean probe() {
        if (!Box.ROOT || !Files.isExecutable(Path.of(SETPRIV)) || !Files.isExecutable(Path.of(UNSHARE))) return false;
        try {
            List<String> cmd = new ArrayList<>(PREFIX);
            cmd.add("true");
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return false;
            }
            return p.exitValue() == 0; // a container without CAP_SYS_ADMIN refuses the namespace
        } catch (java.io.IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
