package dev.crucible.derive;

/** What became of a workflow step in the derived environment. */
public enum Disposition {
    /** Its commands are part of {@code spec.setup.script}. */
    SETUP,
    /** It installs a language toolchain: recorded in {@code spec.setup.toolchains}. */
    TOOLCHAIN,
    /** It runs the tests: its commands are the verifier's command. */
    TEST,
    /** It only lints: its commands are the {@code lint} verifier (or the verifier, when nothing tests). */
    LINT,
    /** Left out; the report says why. */
    DROPPED
}
