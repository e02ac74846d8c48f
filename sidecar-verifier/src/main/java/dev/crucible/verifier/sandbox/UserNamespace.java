package dev.crucible.verifier.sandbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Whether this process runs in a user namespace of its own (not the host's): what per-uid rlimits then count. */
final class UserNamespace {
    private UserNamespace() {}

    /** The host's namespace maps every uid to itself in one line ({@code 0 0 4294967295}); any other map is a namespace of its own. */
    static boolean own() {
        try {
            String[] f = Files.readString(Path.of("/proc/self/uid_map")).strip().split("\\s+");
            return !(f.length == 3 && f[0].equals("0") && f[1].equals("0") && f[2].equals("4294967295"));
        } catch (IOException | RuntimeException e) {
            return false; // no /proc: say the wider count
        }
    }
}
