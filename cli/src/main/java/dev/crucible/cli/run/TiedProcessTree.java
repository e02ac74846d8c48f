package dev.crucible.cli.run;

import dev.crucible.verifier.sandbox.Box;
import dev.crucible.verifier.sandbox.DiskVolume;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A command whose whole process tree ends with this CLI, even on SIGKILL, which runs no hook: {@code setpriv --pdeathsig
 * KILL} ends the direct child when this process dies, and that child is {@code unshare --pid --fork --kill-child}, whose
 * end kills pid 1 of a new PID namespace and with it every process the command started. For setup, which runs outside the
 * box as the CLI's user: a SIGKILLed run as root left setup's {@code sleep 300} under init, and the next run set the
 * prefix up again while the orphan still wrote into it (host round 8, cases 26 and 27). Root only (a PID namespace needs
 * CAP_SYS_ADMIN); where a tool or the namespace is refused, the command runs as it is.
 */
final class TiedProcessTree {
    private static final List<String> PREFIX = List.of(MountNamespace.SETPRIV, "--pdeathsig", "KILL", MountNamespace.UNSHARE, "--pid", "--fork", "--kill-child");
    private static volatile Boolean works;

    private TiedProcessTree() {}

    /** {@code argv} tied to this process, or as it is where that cannot be had. */
    static List<String> wrap(List<String> argv) {
        return available() ? wrapped(argv) : argv;
    }

    static boolean available() {
        Boolean w = works;
        if (w == null) works = w = probe();
        return w;
    }

    private static boolean probe() {
        if (!Box.ROOT || !Files.isExecutable(Path.of(MountNamespace.SETPRIV)) || !Files.isExecutable(Path.of(MountNamespace.UNSHARE))) return false;
        return DiskVolume.run(wrapped(List.of("true"))) == null; // a container without CAP_SYS_ADMIN refuses the namespace
    }

    private static List<String> wrapped(List<String> argv) {
        List<String> out = new ArrayList<>(PREFIX);
        out.addAll(argv);
        return out;
    }
}
