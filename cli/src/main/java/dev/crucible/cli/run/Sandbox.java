package dev.crucible.cli.run;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * How the agent's commands are confined on this machine. {@link Bubblewrap} when {@code bwrap} is
 * installed; {@link Namespaces} for runs that are snapshotted (CRIU can dump it); {@link Unconfined} otherwise, with a warning that says what is then not enforced.
 */
public sealed interface Sandbox permits Bubblewrap, Namespaces, Unconfined {
    /** "bubblewrap", "namespaces" or "none" (recorded in result.json). */
    String name();

    /** The argv that runs {@code argv} confined, in {@code cwd}. */
    List<String> wrap(List<String> argv, Path cwd);

    /** Where HOME points for agent commands (a fresh directory the agent may write). */
    String home();

    /** True when {@link #wrap} makes the agent its own session leader (no setsid is put in front of it). */
    default boolean startsOwnSession() { return false; }

    /** One line for the terminal: what is enforced, or what is not. */
    String describe();

    /** The bwrap on PATH, if any. */
    static Path findBubblewrap() {
        String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
        return Stream.of(path.split(":")).filter(d -> !d.isEmpty()).map(d -> Path.of(d, "bwrap"))
                .filter(Files::isExecutable).findFirst().orElse(null);
    }
}
