package dev.crucible.verifier.exec;

import java.util.List;

/**
 * The shell that runs an environment's scripts (setup, the verifier command): bash where the machine or
 * image has it, as GitHub Actions runs a step (`derive` copies steps verbatim: `[[ … ]]`, `<<<`, `set -o
 * pipefail`), else sh. Decided where the script runs (a grading container's image may lack bash), by the
 * sh that starts it: {@code exec} keeps the process, so its pid and kill semantics stay those of one shell.
 */
public final class Shell {
    private static final String PICK = "if command -v bash >/dev/null 2>&1; then exec bash -c \"$1\"; else exec sh -c \"$1\"; fi";

    private Shell() {}

    /** The argv that runs {@code script}. */
    public static List<String> argv(String script) {
        return List.of("/bin/sh", "-c", PICK, "crucible-shell", script);
    }
}
