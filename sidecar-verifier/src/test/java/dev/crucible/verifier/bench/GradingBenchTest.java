package dev.crucible.verifier.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.verifier.Environment;
import dev.crucible.verifier.support.Fixtures;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The benchmark runs and prints its line (a measurement, not a timing assertion: the machine is shared). */
class GradingBenchTest {
    @Test
    void printsTheBenchLine() {
        Environment env = Environment.load(Fixtures.example().resolve("environment.yaml"));
        GradingBench.Result r = GradingBench.run(env, env.workspacePath().orElseThrow(), 2, Duration.ofSeconds(1));
        System.out.println("[bench] " + r.line());
        assertThat(r.line()).matches("bare_s=\\d+\\.\\d{3} graded_s=\\d+\\.\\d{3} overhead_ratio=\\d+\\.\\d{3} monitor_cpu_pct=\\d+\\.\\d{3} grading=(box|unconfined)");
        assertThat(r.bareSeconds()).isPositive();
        assertThat(r.gradedSeconds()).isPositive();
    }
}
