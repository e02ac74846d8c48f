package dev.crucible.snapshot.engine;

import dev.crucible.snapshot.store.ContainedPaths;
import dev.crucible.snapshot.store.PathEscapeException;
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
 * @param extraDumpArgs        appended to every pre-dump and dump; the local runtime passes
 *                             {@code --network-lock skip} for trees in their own network namespace
 *                             (CRIU would otherwise need iptables to lock a namespace that has no
 *                             TCP connections to protect)
 */
public record EngineConfig(Duration defaultFreezeTimeout, Duration maxFreezeTimeout, Duration criuTimeout,
                           List<Path> workspaceRoots, int defaultPreDumps, List<String> extraDumpArgs) {

    public EngineConfig {
        extraDumpArgs = extraDumpArgs == null ? List.of() : List.copyOf(extraDumpArgs);
    }

    /** The configuration before {@code extraDumpArgs} existed (none). */
    public EngineConfig(Duration defaultFreezeTimeout, Duration maxFreezeTimeout, Duration criuTimeout,
                        List<Path> workspaceRoots, int defaultPreDumps) {
        this(defaultFreezeTimeout, maxFreezeTimeout, criuTimeout, workspaceRoots, defaultPreDumps, List.of());
    }

    public EngineConfig withExtraDumpArgs(List<String> args) {
        return new EngineConfig(defaultFreezeTimeout, maxFreezeTimeout, criuTimeout, workspaceRoots, defaultPreDumps, args);
    }

    public static EngineConfig defaults(List<Path> workspaceRoots) {
        return new EngineConfig(Duration.ofSeconds(30), Duration.ofMinutes(10), Duration.ofMinutes(30),
                List.copyOf(workspaceRoots), 2);
    }

    /** {@code given} (a caller-named directory) if it is absolute and inside one of {@link #workspaceRoots}. */
    Path allowedWorkspace(String given, String field) {
        Path p = Path.of(given);
        if (!p.isAbsolute()) {
            throw new IllegalArgumentException(field + " must be an absolute path, got '" + given + "'");
        }
        for (Path root : workspaceRoots()) {
            try {
                return ContainedPaths.requireInside(root, p, field);
            } catch (SecurityException ignored) {
                // try the next root
            }
        }
        throw new PathEscapeException(field, given,
                workspaceRoots().isEmpty() ? Path.of("<no workspace roots configured>") : workspaceRoots().get(0));
    }

    /** The caller's freeze limit ({@code null}: the default), refused above {@link #maxFreezeTimeout}. */
    Duration freezeTimeout(Long ms) {
        if (ms == null) {
            return defaultFreezeTimeout();
        }
        if (ms <= 0 || ms > maxFreezeTimeout().toMillis()) {
            throw new IllegalArgumentException("freezeTimeoutMs must be between 1 and " + maxFreezeTimeout().toMillis());
        }
        return Duration.ofMillis(ms);
    }
}
