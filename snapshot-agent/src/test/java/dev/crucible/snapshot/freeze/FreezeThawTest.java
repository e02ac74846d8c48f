package dev.crucible.snapshot.freeze;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.crucible.snapshot.HostAssumptions;
import dev.crucible.snapshot.engine.EngineBuilder;
import dev.crucible.snapshot.engine.FreezeResult;
import dev.crucible.snapshot.engine.SessionConflictException;
import dev.crucible.snapshot.engine.SnapshotEngine;
import dev.crucible.snapshot.target.ProcFs;
import dev.crucible.snapshot.client.api.TargetSpec;
import dev.crucible.snapshot.workload.MemoryWorkload;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real freezes of a real process tree; no CRIU needed. */
class FreezeThawTest {

    @TempDir
    Path tmp;

    private static long count(MemoryWorkload w) {
        return w.status().count();
    }

    private static void assertStalled(MemoryWorkload w) throws InterruptedException {
        long c = count(w);
        Thread.sleep(150);
        assertThat(count(w)).as("counter while frozen").isEqualTo(c);
    }

    private static void assertRunning(MemoryWorkload w) {
        long c = count(w);
        await().atMost(Duration.ofSeconds(5)).until(() -> count(w) > c);
    }

    @Test
    void cgroupV2FreezerStopsAndResumesTheTree() throws Exception {
        HostAssumptions.assumeCgroup2();
        try (SnapshotEngine engine = new EngineBuilder().store(tmp).build();
             MemoryWorkload w = MemoryWorkload.start(8, 0, 5, 0)) {
            FreezeResult f = engine.freeze(TargetSpec.ofPid(w.pid()), 10_000L);
            assertThat(f.freezer()).isEqualTo(FreezeHandle.CGROUP_V2);
            assertThat(Files.readString(Path.of(f.cgroup(), "cgroup.events"))).contains("frozen 1");
            assertStalled(w);
            assertThatThrownBy(() -> engine.freeze(TargetSpec.ofPid(w.pid()), 10_000L))
                    .isInstanceOf(SessionConflictException.class);
            assertThat(engine.thaw(f.freezeId())).isGreaterThanOrEqualTo(150);
            assertRunning(w);
            assertThat(Files.list(engine.store().journalDir())).isEmpty();
        }
    }

    @Test
    void sigstopFallbackWhenNoCgroupCanBeUsed() throws Exception {
        HostAssumptions.assumeProcessTools();
        try (SnapshotEngine engine = new EngineBuilder().store(tmp).useCgroups(false).build();
             MemoryWorkload w = MemoryWorkload.start(8, 0, 5, 0)) {
            FreezeResult f = engine.freeze(TargetSpec.ofPid(w.pid()), 10_000L);
            assertThat(f.freezer()).isEqualTo(FreezeHandle.SIGSTOP);
            assertThat(ProcFs.state(w.pid())).isEqualTo('T');
            assertStalled(w);
            engine.thaw(f.freezeId());
            assertRunning(w);
        }
    }

    @Test
    void watchdogThawsAtTheDeadlineWhenNobodyThaws() throws Exception {
        HostAssumptions.assumeCgroup2();
        try (SnapshotEngine engine = new EngineBuilder().store(tmp).build();
             MemoryWorkload w = MemoryWorkload.start(8, 0, 5, 0)) {
            FreezeResult f = engine.freeze(TargetSpec.ofPid(w.pid()), 300L);
            assertStalled(w);
            await().atMost(Duration.ofSeconds(3)).until(() -> !CgroupV2FreezerAccess.frozen(f.cgroup()));
            assertRunning(w);
            assertThat(Files.list(engine.store().journalDir())).isEmpty();
            assertThatThrownBy(() -> engine.thaw(f.freezeId())).isInstanceOf(SessionConflictException.class);
        }
    }

    /** Small indirection so the test reads the kernel's view, not the engine's. */
    static final class CgroupV2FreezerAccess {
        static boolean frozen(String cgroup) {
            return CgroupV2Freezer.isFrozen(Path.of(cgroup));
        }
    }
}
