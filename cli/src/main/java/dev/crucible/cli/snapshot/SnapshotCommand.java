package dev.crucible.cli.snapshot;

import picocli.CommandLine.Command;

/**
 * {@code crucible snapshot …}: process snapshots on this machine (CRIU) and the benchmark.
 * Snapshots of whole local rollouts are taken by the local runtime through
 * {@link dev.crucible.snapshot.LocalSnapshots}; these subcommands work on a process tree.
 */
@Command(name = "snapshot", mixinStandardHelpOptions = true,
        description = "Snapshot and restore local process trees with CRIU; benchmark the snapshot path.",
        subcommands = {SnapshotTakeCommand.class, SnapshotRestoreCommand.class, SnapshotListCommand.class,
                SnapshotBenchCommand.class})
public final class SnapshotCommand implements Runnable {

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }
}
