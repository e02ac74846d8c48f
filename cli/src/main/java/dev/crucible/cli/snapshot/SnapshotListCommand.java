package dev.crucible.cli.snapshot;

import dev.crucible.snapshot.LocalSnapshots;
import dev.crucible.snapshot.client.store.Manifest;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "list", mixinStandardHelpOptions = true,
        description = "List snapshots in the local image store, newest first; GROUP names the rollout attempt of rollout snapshots.")
public final class SnapshotListCommand implements Callable<Integer> {

    @Option(names = "--store", defaultValue = "${env:CRUCIBLE_SNAPSHOTS:-${sys:user.home}/.cache/crucible/snapshots}", description = "image store (default: ${DEFAULT-VALUE})")
    Path store;

    @Override
    public Integer call() {
        System.out.printf("%-52s %-9s %-30s %-10s %10s  %s%n", "ID", "STATE", "GROUP", "FREEZE_MS", "IMAGE_MIB", "REASON");
        if (!java.nio.file.Files.isDirectory(store.resolve("snapshots"))) return 0; // an empty store is not created by listing it
        for (Manifest m : new LocalSnapshots(store).list()) {
            System.out.printf("%-52s %-9s %-30s %-10s %10s  %s%n", m.id, m.state, m.group == null ? "-" : m.group,
                    m.freezeWindowMs == null ? "-" : m.freezeWindowMs.toString(),
                    m.imageBytes == null ? "-" : String.format("%.1f", m.imageBytes / 1048576.0),
                    m.reason == null ? "" : m.reason);
        }
        return 0;
    }
}
