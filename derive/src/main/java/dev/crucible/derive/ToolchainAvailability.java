package dev.crucible.derive;

import java.util.function.BiPredicate;

/**
 * Whether a toolchain version can run where the derived environment will run: the default matrix
 * cell is the newest stable combination whose toolchains are available. In a cluster every version
 * counts as available (the image carries it); the local {@code crucible derive} installs a check
 * against this machine's installed toolchains.
 */
public final class ToolchainAvailability {
    private static volatile BiPredicate<String, String> available = (language, version) -> true;

    private ToolchainAvailability() {}

    /** {@code check}: (language — python, go, node, rust, java — and the matrix value) → available. */
    public static void use(BiPredicate<String, String> check) { available = check; }

    /**
     * Derive for this machine: apt steps are checked against its dpkg database ({@link SystemPackages}); left out
     * when what they install is here, refused when it is not.
     */
    public static void useThisMachinesPackages() { SystemPackages.use(SystemPackages::installedHere); }

    static boolean available(String language, String version) { return available.test(language, version); }
}
