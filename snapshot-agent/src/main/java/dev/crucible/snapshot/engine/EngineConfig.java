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
}
