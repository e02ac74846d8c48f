package dev.crucible.verifier.sandbox;

import java.util.ArrayList;
import java.util.List;

/**
 * The box launcher's command line: {@code bash -c SCRIPT crucible-box [N SRC DST...] BWRAP... ARGV...}. The staged
 * mounts (a source and its mount point each) and bwrap's arguments (up to 512 protected-file binds, each path twice)
 * are arguments of their own, never text of the script: Linux limits one argument to 128 KiB (MAX_ARG_STRLEN), and a
 * script holding them all failed to start with E2BIG, "Argument list too long" (meilisearch's {@code **}{@code /tests/**}
 * files); the whole argv may take a quarter of the stack limit (2 MiB and more).
 */
final class LauncherArgv {
    /** Consumes the mount count and its pairs from the positional parameters; what is left is the exec line. */
    static final String MOUNT_LOOP = "n=$1; shift; while [ \"$n\" -gt 0 ]; do mount --bind \"$1\" \"$2\"; shift 2; n=$((n - 1)); done";

    private LauncherArgv() {
    }

    /** {@code script} ends with {@code exec "$@"}; it runs {@link #MOUNT_LOOP} first when {@code mounts} is not empty. */
    static List<String> of(boolean privateMounts, List<String> script, List<String> mounts, List<String> exec, List<String> argv) {
        List<String> out = new ArrayList<>();
        if (privateMounts) out.addAll(List.of("/usr/bin/unshare", "--mount", "--propagation", "private"));
        out.addAll(List.of("/bin/bash", "-c", String.join("\n", script), "crucible-box"));
        if (!mounts.isEmpty()) {
            out.add(Integer.toString(mounts.size() / 2));
            out.addAll(mounts);
        }
        out.addAll(exec);
        out.addAll(argv);
        return out;
    }
}
