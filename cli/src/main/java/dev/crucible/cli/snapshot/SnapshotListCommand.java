package dev.crucible.cli.snapshot;

import dev.crucible.snapshot.LocalSnapshots;
import dev.crucible.snapshot.store.Manifest;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "list", mixinStandardHelpOptions = true, description = "List snapshots in the local image store.")
public final class SnapshotListCommand implements Callable<Integer> {

    @Option(names = "--store", defaultValue = "${sys:user.home}/.cache/crucible/snapshots", description = "image store (default: ${DEFAULT-VALUE})")
    Path store;

    @Override
    public Integer call() {
        System.out.printf("%-40s %-9s %-10s %10s  %s%n", "ID", "STATE", "FREEZE_MS", "IMAGE_MIB", "REASON");
        for (Manifest m : new LocalSnapshots(store).list()) {
            System.out.printf("%-40s %-9s %-10s %10s  %s%n", m.id, m.state,
                    m.freezeWindowMs == null ? "-" : m.freezeWindowMs.toString(),
                    m.imageBytes == null ? "-" : String.format("%.1f", m.imageBytes / 1048576.0),
                    m.reason == null ? "" : m.reason);
        }
        return 0;
    }
}
