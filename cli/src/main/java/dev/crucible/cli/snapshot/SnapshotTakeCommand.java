package dev.crucible.cli.snapshot;

import dev.crucible.snapshot.LocalSnapshots;
import dev.crucible.snapshot.client.store.Manifest;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "take", mixinStandardHelpOptions = true,
        description = "Snapshot the process tree rooted at PID (it keeps running), with an optional workspace directory.")
public final class SnapshotTakeCommand implements Callable<Integer> {

    @Option(names = "--pid", required = true, description = "root of the tree; best started as 'unshare --pid --fork setsid CMD'")
    long pid;

    @Option(names = "--workspace", description = "directory archived while the tree is frozen")
    Path workspace;

    @Option(names = "--store", defaultValue = "${sys:user.home}/.cache/crucible/snapshots", description = "image store (default: ${DEFAULT-VALUE})")
    Path store;

    @Option(names = "--id", description = "snapshot id (default: generated)")
    String id;

    @Override
    public Integer call() {
        Manifest m = new LocalSnapshots(store).snapshot(id == null ? LocalSnapshots.newId() : id, pid, workspace, null);
        System.out.printf("snapshot=%s state=%s freeze_ms=%d image_mib=%.1f%n", m.id, m.state, m.freezeWindowMs,
                m.imageBytes / 1048576.0);
        return 0;
    }
}
