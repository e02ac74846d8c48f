package dev.crucible.cli.snapshot;

import dev.crucible.cli.run.RunningRollout;
import dev.crucible.cli.run.RolloutSnapshotter;
import dev.crucible.snapshot.client.store.Manifest;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code crucible snapshot ROLLOUT_DIR}: a snapshot, now, of a running snapshot-able local rollout
 * (started with {@code crucible run --snapshot-every}, or a restored branch), found through the
 * running.json its attempt folder holds. The subcommands work on raw process trees and run the
 * benchmark. Exit 0 on success, 2 on bad input, 3 when the folder's rollout is not running, 1
 * when the snapshot itself failed (the agent was thawed and the snapshot marked FAILED).
 */
@Command(name = "snapshot", mixinStandardHelpOptions = true,
        description = {"Snapshot a running local rollout (crucible snapshot ROLLOUT_DIR); snapshot and restore raw process trees "
                + "with CRIU (take, restore, list); benchmark the snapshot path (bench).",
                "Rollout snapshots go to the store the run was started with; crucible restore SNAPSHOT --out DIR continues one."},
        subcommands = {SnapshotTakeCommand.class, SnapshotRestoreCommand.class, SnapshotListCommand.class,
                SnapshotBenchCommand.class})
public final class SnapshotCommand implements Callable<Integer> {
    static final int EXIT_NOT_RUNNING = 3;

    @Parameters(index = "0", arity = "0..1", paramLabel = "ROLLOUT_DIR",
            description = "Attempt folder of a running rollout (the --out of crucible run, or of crucible restore).")
    Path rolloutDir;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (rolloutDir == null) {
            spec.commandLine().usage(out);
            return 0;
        }
        Path dir = rolloutDir.toAbsolutePath().normalize();
        if (!java.nio.file.Files.isDirectory(dir)) {
            err.println("crucible snapshot: ROLLOUT_DIR: no such folder " + dir);
            err.flush();
            return 2;
        }
        RunningRollout r;
        try {
            r = RunningRollout.readLive(dir);
        } catch (RunningRollout.NotRunning e) {
            err.println("crucible snapshot: " + e.getMessage());
            err.flush();
            return EXIT_NOT_RUNNING;
        }
        try {
            Manifest m = RolloutSnapshotter.take(r, "manual");
            out.printf("snapshot=%s rollout=%s attempt=%d state=%s freeze_ms=%d image_mib=%.1f workspace_mib=%.1f store=%s%n", m.id,
                    r.rollout(), r.attempt(), m.state, m.freezeWindowMs, m.imageBytes / 1048576.0,
                    m.workspaceBytes == null ? 0 : m.workspaceBytes / 1048576.0, r.store());
            out.println("branch it: crucible restore " + m.id + " --out DIR" + (r.store().equals(
                    dev.crucible.cli.run.SnapshotPolicy.defaultStore().toAbsolutePath().toString()) ? "" : " --store " + r.store()));
            out.flush();
            return 0;
        } catch (Exception e) {
            err.println("crucible snapshot: " + e.getMessage() + " (the agent was thawed and runs on)");
            err.flush();
            return 1;
        }
    }
}
