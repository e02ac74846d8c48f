package dev.crucible.derive;

/** What one shell command in a step does, as far as building an environment cares. */
enum CommandKind {
    /** Runs a test suite: becomes the verifier. */
    TEST,
    /** Only checks style, types or formatting: becomes the optional lint verifier. */
    LINT,
    /** Installs dependencies or tools: safe to move into the setup script. */
    INSTALL,
    /** Publishes, uploads or deploys: only meaningful on GitHub, dropped. */
    CI_ONLY,
    /** Anything else (build, generate, configure): setup when it comes before the tests. */
    OTHER
}
