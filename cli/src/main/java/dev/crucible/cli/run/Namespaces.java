package dev.crucible.cli.run;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The sandbox of snapshot-able runs ({@code --snapshot-every}, or a restored branch): the agent is
 * PID 1 of its own PID namespace with its own network (loopback only), IPC and UTS namespaces and
 * its own session, started as {@code unshare --pid --fork --net --ipc --uts setsid CMD}.
 *
 * <p>Why not bubblewrap: CRIU cannot dump a bwrap tree (bwrap's pid 1 maps /usr/bin/bwrap from a
 * mount outside the sandbox, stdio is bound to the host's /dev/null; see snapshot-agent/README).
 * A private mount namespace with a read-only root dumps, but CRIU 4.1 restores its root mount
 * read-write with {@code --ext-mount-map auto}, so the protection would silently vanish after a
 * restore; this sandbox therefore has no mount namespace, and says so in {@link #describe}.
 *
 * <p>PID 1 is a small shell that runs the agent command and writes its exit status to
 * {@code exitFile}: a restored tree is no child of the CLI, so that file is how a branch's exit
 * status is known.
 */
public record Namespaces(Path homeDir, Path exitFile) implements Sandbox {
    @Override
    public String name() { return "namespaces"; }

    @Override
    public List<String> wrap(List<String> argv, Path cwd, Map<String, String> env) {
        List<String> a = new ArrayList<>(List.of("unshare", "--pid", "--fork", "--net", "--ipc", "--uts", "setsid",
                "/bin/sh", "-c", "f=$1; shift; \"$@\"; s=$?; echo $s > \"$f\"; exit $s", "crucible-agent", exitFile.toString()));
        a.addAll(argv);
        return a;
    }

    @Override
    public String home() { return homeDir.toString(); }

    /** setsid runs inside the PID namespace: a session leader outside it makes CRIU refuse the dump. */
    @Override
    public boolean startsOwnSession() { return true; }

    @Override
    public String describe() {
        return "sandbox: namespaces (snapshot-able; chosen because of --snapshot-every: own PID, network, IPC and UTS namespaces,"
                + " no network). Weaker than the default bubblewrap sandbox: the file system is NOT read-only (the agent can write"
                + " wherever " + System.getProperty("user.name") + " can), protected paths are not bound read-only, hidden tests"
                + " are readable (the monitor still reports changes), /tmp is the host's, no user namespace (the agent keeps this user's"
                + " privileges), no memory, process, CPU or disk limits. Grading still runs in the bubblewrap box. Runs without"
                + " --snapshot-every keep bubblewrap.";
    }
}
