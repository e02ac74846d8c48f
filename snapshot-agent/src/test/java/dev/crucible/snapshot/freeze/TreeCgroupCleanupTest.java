package dev.crucible.snapshot.freeze;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.snapshot.HostAssumptions;
import dev.crucible.snapshot.engine.EngineBuilder;
import dev.crucible.snapshot.engine.FreezeResult;
import dev.crucible.snapshot.engine.SnapshotEngine;
import dev.crucible.snapshot.store.ManifestKey;
import dev.crucible.snapshot.target.CgroupMounts;
import dev.crucible.snapshot.target.ProcCgroups;
import dev.crucible.snapshot.target.ProcFs;
import dev.crucible.snapshot.client.api.TargetSpec;
import dev.crucible.snapshot.workload.MemoryWorkload;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Freezer cgroups made for local trees do not outlive their freeze, nor an agent that died. */
class TreeCgroupCleanupTest {

    static final ManifestKey KEY = ManifestKey.of("test-key-0123456789abcdef0123456789".getBytes());

    @TempDir
    Path tmp;

    @Test
    void theTreeGoesBackToItsCgroupAndTheFreezerCgroupIsRemovedAfterThaw() throws Exception {
        HostAssumptions.assumeCgroup2();
        Path parent = CgroupMounts.cgroup2().orElseThrow().resolve("crucible-test-" + UUID.randomUUID().toString().substring(0, 8));
        try (SnapshotEngine engine = new EngineBuilder().store(tmp.resolve("store")).manifestKey(KEY).cgroupParent(parent).build();
             MemoryWorkload w = MemoryWorkload.start(8, 0, 5, 0)) {
            String before = ProcFs.cgroupV2Path(w.pid());
            FreezeResult f = engine.freeze(TargetSpec.ofPid(w.pid()), 10_000L);
            assertThat(f.cgroup()).contains("/tree-" + w.pid() + "-");
            assertThat(ProcFs.cgroupV2Path(w.pid())).contains("tree-");
            engine.thaw(f.freezeId());
            assertThat(Path.of(f.cgroup())).doesNotExist();
            assertThat(ProcFs.cgroupV2Path(w.pid())).isEqualTo(before);
            assertThat(treeDirs(parent)).isEmpty();
        } finally {
            Files.deleteIfExists(parent);
        }
    }

    @Test
    void aFrozenCgroupLeftByADeadAgentIsThawedAndRemovedAtStartUp() throws Exception {
        HostAssumptions.assumeCgroup2();
        Path parent = CgroupMounts.cgroup2().orElseThrow().resolve("crucible-test-" + UUID.randomUUID().toString().substring(0, 8));
        // An agent (pid 4000000, never alive) froze a tree and died: its cgroup stays, frozen, holding the tree.
        Path stale = Files.createDirectories(parent.resolve("tree-1-1-by-4000000-1"));
        Path mine = Files.createDirectories(parent.resolve("tree-2-2-by-" + ProcessHandle.current().pid() + "-"
                + ProcFs.startTime(ProcessHandle.current().pid())));
        try (MemoryWorkload w = MemoryWorkload.start(8, 0, 5, 0)) {
            Files.writeString(stale.resolve("cgroup.procs"), Long.toString(w.pid()));
            CgroupV2Freezer.freeze(stale, java.time.Duration.ofSeconds(5));
            long c = w.status().count();
            Thread.sleep(150);
            assertThat(w.status().count()).as("frozen by the dead agent").isEqualTo(c);

            try (SnapshotEngine engine = new EngineBuilder().store(tmp.resolve("store")).manifestKey(KEY).cgroupParent(parent).build()) {
                List<String> report = engine.recover();
                assertThat(report).anyMatch(l -> l.contains("tree-1-1-by-4000000-1"));
                assertThat(mine).as("a live agent's cgroup is not touched by start-up cleanup").exists();
            }
            assertThat(stale).doesNotExist();
            assertThat(ProcCgroups.of(w.pid()).paths()).noneMatch(p -> p.contains("tree-"));
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(5)).until(() -> w.status().count() > c);
        } finally {
            Files.deleteIfExists(mine);
            Files.deleteIfExists(stale);
            Files.deleteIfExists(parent);
        }
    }

    private static List<Path> treeDirs(Path parent) throws Exception {
        if (!Files.isDirectory(parent)) {
            return List.of();
        }
        try (var s = Files.list(parent)) {
            return s.filter(p -> p.getFileName().toString().startsWith("tree-")).toList();
        }
    }
}
