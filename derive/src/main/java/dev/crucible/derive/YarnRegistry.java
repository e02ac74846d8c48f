package dev.crucible.derive;

/**
 * Yarn 1 fetches each package from the URL its {@code yarn.lock} recorded ({@code resolved "https://HOST/name/-/name-1.0.0.tgz"}),
 * not from the configured registry (yarnpkg/yarn#4120): excalidraw's setup retried "There appears to be trouble with your
 * network connection" on a machine that reaches packages through its own npm registry. Setup points yarn at the registry
 * of the machine's npm configuration ({@code npm config get registry}, never a host written here), rewrites the host
 * of the lock's registry tarballs (the {@code [@scope/]name/-/file} layout; git and other URLs stay) for setup's installs,
 * and puts every lock back as the commit has it when setup ends, so the tracked file the agent and the grader see is
 * unchanged. It also gives yarn's fetches 10 minutes instead of 30 s ({@code YARN_NETWORK_TIMEOUT}): on a loaded machine
 * a fetch that waits for the CPU is not a network fault.
 */
final class YarnRegistry {
    private YarnRegistry() {
    }

    static final String LINES = String.join("\n",
            // yarn 1 gives a fetch 30 s, then retries "There appears to be trouble with your network connection": on a
            // loaded machine (excalidraw's 1,444 tarballs at load 40, both hosts reachable) it retried until setup's limit
            "export YARN_NETWORK_TIMEOUT=\"${YARN_NETWORK_TIMEOUT:-600000}\"",
            "_crucible_registry=\"$(npm config get registry 2>/dev/null)\"; _crucible_registry=\"${_crucible_registry%/}\"",
            "if [ -n \"$_crucible_registry\" ] && [ \"$_crucible_registry\" != undefined ]; then",
            "  export npm_config_registry=\"$_crucible_registry/\"",
            "  _crucible_locks=\"$(mktemp -d)\"; _crucible_top=\"$PWD\"",
            "  for _l in $(find . -maxdepth 4 -name yarn.lock -not -path '*/node_modules/*'); do",
            "    mkdir -p \"$_crucible_locks/$(dirname \"$_l\")\" && cp -p \"$_l\" \"$_crucible_locks/$_l\"",
            "    sed -E -i \"s#^([[:space:]]+resolved \\\")https?://[^/\\\"]+/((@[^/\\\"]+/)?[^/\\\"@]+/-/[^\\\"]+)#\\\\1$_crucible_registry/\\\\2#\" \"$_l\"",
            "  done",
            "  trap '(cd \"$_crucible_locks\" && find . -name yarn.lock -exec cp -p {} \"$_crucible_top\"/{} \\;)' EXIT",
            "fi");

    static final String NOTE = "yarn 1 fetches from the hosts yarn.lock recorded: setup points it at the registry of the "
            + "machine's npm configuration and rewrites the lock's registry tarball hosts for its installs, putting the "
            + "committed yarn.lock back when setup ends; yarn's fetches get 10 minutes (YARN_NETWORK_TIMEOUT), not 30 s";
}
