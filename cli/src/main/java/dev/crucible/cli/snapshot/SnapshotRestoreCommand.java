package dev.crucible.cli.snapshot;

import dev.crucible.snapshot.LocalSnapshots;
import dev.crucible.snapshot.client.api.RestoreResult;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "restore", mixinStandardHelpOptions = true,
        description = "Restore a snapshot as a new running tree (a branch); run it again for another branch.")
public final class SnapshotRestoreCommand implements Callable<Integer> {

    @Parameters(index = "0", description = "snapshot id")
    String id;

    @Option(names = "--out", description = "empty directory that receives the workspace")
    Path out;

    @Option(names = "--store", defaultValue = "${sys:user.home}/.cache/crucible/snapshots", description = "image store (default: ${DEFAULT-VALUE})")
    Path store;

    @Override
    public Integer call() {
        RestoreResult r = new LocalSnapshots(store).restore(id, out);
        System.out.printf("restored=%s pid=%d restore_ms=%d workspace=%s%n", r.snapshotId(), r.pid(), r.restoreMs(),
                r.workspaceOut() == null ? "-" : r.workspaceOut());
        return 0;
    }
}
