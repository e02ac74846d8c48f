package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The watchdog's decisions on a clock it is given, and its ticker ending an attempt whose own thread never returns. */
class AttemptWatchdogTest {
    private static final long S = TimeUnit.SECONDS.toNanos(1);

    @Test
    void beforeGradingItStopsTheAgentThenAbandons() {
        List<String> stops = new ArrayList<>();
        AttemptWatchdog.Watched a = new AttemptWatchdog.Watched(() -> false, 100 * S, () -> 0, Duration.ofSeconds(30), stops::add, w -> { });
        boolean[] stopped = {false};
        assertThat(AttemptWatchdog.tick(a, 100 * S, 0, stopped)).isNull();
        assertThat(stops).isEmpty();
        assertThat(AttemptWatchdog.tick(a, 103 * S, 0, stopped)).isNull();
        assertThat(stops).hasSize(1).allMatch(w -> w.contains("deadline passed"));
        assertThat(AttemptWatchdog.tick(a, 110 * S, 0, stopped)).isNull();
        assertThat(stops).as("stopped once").hasSize(1);
        assertThat(AttemptWatchdog.tick(a, 116 * S, 0, stopped)).contains("grading has not started");
    }

    @Test
    void gradingGetsTheVerifiersTimeoutPlusItsMargin() {
        AttemptWatchdog.Watched a = new AttemptWatchdog.Watched(() -> false, 100 * S, () -> 0, Duration.ofSeconds(30), w -> { }, w -> { });
        boolean[] stopped = {false};
        long since = 90 * S; // grading started before the deadline and runs past it
        assertThat(AttemptWatchdog.tick(a, 150 * S, since, stopped)).as("within 30 + 60 s of grading").isNull();
        assertThat(stopped[0]).as("a grading attempt's agent is not the watchdog's to kill").isFalse();
        assertThat(AttemptWatchdog.tick(a, 181 * S, since, stopped)).contains("grading ran past its bound of 90 s");
    }

    @Test
    void theTickerAbandonsAnAttemptThatNeverEnds() throws Exception {
        AtomicBoolean ended = new AtomicBoolean();
        CountDownLatch abandoned = new CountDownLatch(1);
        AttemptWatchdog.watch(new AttemptWatchdog.Watched(ended::get, System.nanoTime(), () -> 0, Duration.ofSeconds(1), w -> { }, w -> {
            ended.set(true);
            abandoned.countDown();
        }));
        assertThat(abandoned.await(AttemptWatchdog.RUN_GRACE_S + 10, TimeUnit.SECONDS)).as("abandoned after the grace").isTrue();
    }
}
