package dev.crucible.snapshot.freeze;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.snapshot.target.ProcessRef;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** When a journal entry's lease is over (pure; the real freeze and kill are in FreezeLeaseWatchdogTest). */
class FreezeLeaseTest {

    private static final ProcessRef SELF = JournalEntry.self();
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private final FreezeLeaseWatchdog watchdog = new FreezeLeaseWatchdog(Path.of("/nonexistent"), null, Duration.ofSeconds(2));

    private static JournalEntry entry(long startTime, String phase, Instant deadline) {
        return new JournalEntry("s1", "s1", new FreezeHandle(FreezeHandle.CGROUP_V2, "/sys/fs/cgroup/x", List.of()), List.of(),
                SELF.pid(), startTime, T0, deadline, null, phase);
    }

    @Test
    void aLiveOwnerHoldsTheLeaseUntilDeadlinePlusGrace() {
        JournalEntry e = entry(SELF.startTime(), "frozen", T0.plusSeconds(10));
        assertThat(watchdog.expired(e, T0.plusSeconds(11))).isEmpty();
        assertThat(watchdog.expired(e, T0.plusSeconds(12))).isEmpty();
        assertThat(watchdog.expired(e, T0.plusMillis(12_001))).get().asString().contains("did not thaw");
    }

    @Test
    void anOwnerThatIsGoneEndsTheLeaseAtOnceEvenWithAPidReused() {
        // same pid, another start time: the process that froze the tree is gone, whoever holds the pid now
        JournalEntry e = entry(SELF.startTime() + 1, "frozen", T0.plusSeconds(600));
        assertThat(watchdog.expired(e, T0)).get().asString().contains("agent pid " + SELF.pid() + " is gone");
    }

    @Test
    void aGpuSuspendEntryHasNoFreezeDeadlineYet() {
        // written with deadline = now before the GPU is locked; the freeze entry that follows carries the real one
        JournalEntry e = entry(SELF.startTime(), "gpu-suspend", T0);
        assertThat(watchdog.expired(e, T0.plusSeconds(60))).isEmpty();
    }

    @Test
    void withoutADirectoryThereIsNothingToWatch() {
        assertThat(watchdog.pass()).isZero();
    }
}
