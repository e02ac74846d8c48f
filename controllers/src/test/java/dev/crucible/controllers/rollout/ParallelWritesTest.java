package dev.crucible.controllers.rollout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class ParallelWritesTest {

    @Test
    void writesAreInFlightTogether() {
        // Each write waits until all three have started: one after another, none would finish.
        CountDownLatch started = new CountDownLatch(3);
        Supplier<String> write = () -> {
            started.countDown();
            try {
                return started.await(10, TimeUnit.SECONDS) ? "done" : "alone";
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        };
        assertThat(ParallelWrites.all(List.of(write, write, write))).containsExactly("done", "done", "done");
    }

    @Test
    void everyWriteRunsAndTheFirstFailureIsThrown() {
        AtomicInteger ran = new AtomicInteger();
        Supplier<String> ok = () -> {
            ran.incrementAndGet();
            return "ok";
        };
        Supplier<String> refused = () -> {
            ran.incrementAndGet();
            throw new IllegalArgumentException("refused");
        };
        assertThatThrownBy(() -> ParallelWrites.all(List.of(ok, refused, ok))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("refused");
        assertThat(ran).hasValue(3);
    }
}
