package dev.crucible.cli.run;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How the agent's commands are confined on this machine. {@link Bubblewrap} (the shared
 * {@link dev.crucible.verifier.sandbox.Box}) when bwrap works here; {@link Namespaces} for runs
 * that are snapshotted (CRIU can dump it); {@link Unconfined} otherwise, with a warning that says
 * what is then not enforced.
 */
public sealed interface Sandbox extends AutoCloseable permits Bubblewrap, Namespaces, Unconfined {
    /** "bubblewrap", "namespaces" or "none" (recorded in result.json). */
    String name();

    /** The argv that runs {@code argv} confined, in {@code cwd}; {@code env} is what the launcher gets (its PATH is read). */
    List<String> wrap(List<String> argv, Path cwd, Map<String, String> env);

    /** Where HOME points for agent commands (a fresh directory the agent may write). */
    String home();

    /** True when {@link #wrap} makes the agent its own session leader (no setsid is put in front of it). */
    default boolean startsOwnSession() { return false; }

    /** Called before agent commands run: makes the workspace writable for the sandbox's user. */
    default void prepare() throws IOException { }

    /** Whether the sandbox proves that no process of its commands is left (then no sweep of /proc is needed). */
    default boolean nothingLeft() { return false; }

    /** After the agent ended with {@code exitCode}: the resource limit that ended it, if one did. */
    default Optional<String> limitExceeded(int exitCode) { return Optional.empty(); }

    /** A note that a limit held only inside the box (an rlimit) was likely what ended the agent, from its exit and output's tail; or null. */
    default String limitLikely(int exitCode, String outputTail) { return null; }

    /** One line for the terminal: what is enforced, or what is not. */
    String describe();

    /** Ends whatever the sandbox still holds (processes, cgroups). */
    @Override
    default void close() { }
}
