package dev.crucible.snapshot.engine;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Limits and allow-lists of one engine.
 *
 * @param defaultFreezeTimeout how long a tree may stay frozen when the caller names no limit
 * @param maxFreezeTimeout     the most a caller may ask for; the watchdog thaws at the deadline
 * @param criuTimeout          a CRIU run taking longer is killed (and the tree thawed)
 * @param workspaceRoots       directories under which callers may name workspaces to archive or
 *                             restore into; nothing outside them is read or written on a caller's say
 * @param defaultPreDumps      iterative pre-dumps before the freeze (used only with memory tracking)
 */
public record EngineConfig(Duration defaultFreezeTimeout, Duration maxFreezeTimeout, Duration criuTimeout,
                           List<Path> workspaceRoots, int defaultPreDumps) {

    public static EngineConfig defaults(List<Path> workspaceRoots) {
        return new EngineConfig(Duration.ofSeconds(30), Duration.ofMinutes(10), Duration.ofMinutes(30),
                List.copyOf(workspaceRoots), 2);
    }
}
