package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 34: a run that ends TimedOut reports no positive reward. The real CLI, with the example's honest agent, which fixes the
 * bug, passes the tests and then sleeps past its deadline: the tree is still graded (its findings would make it Hacked), and
 * its score is kept in testReward and verdict, but {@code reward}, what a trainer trains on, is the floor
 * ({@code Reward.atEnd}). Before, result.json said TimedOut with reward 1.0.
 */
@Timeout(240)
class TimedOutRewardTest {

    @Test
    void anAgentThatPassesThenSleepsPastItsDeadlineIsTimedOutWithTheFloorReward(@TempDir Path dir) throws Exception {
        String marker = "876.375" + ProcessHandle.current().pid();
        Path env = LocalRuns.withoutSetup(LocalRuns.copyExample(dir.resolve("env"), LocalRuns.rollout("passes-then-sleeps", "embedded",
                "sh " + LocalRuns.agent("honest.sh") + "; echo FIXED; sleep " + marker, 40)));
        LocalRuns.Run r = LocalRuns.run("-f", env.toString(), "--out", dir.resolve("out").toString());
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(Files.readString(dir.resolve("out/agent.log"))).as("the fix landed before the deadline").contains("FIXED");
        JsonNode res = LocalRuns.json(dir.resolve("out/result.json"));
        assertThat(res.path("phase").asText()).as(r.out()).isEqualTo("TimedOut");
        assertThat(res.path("verdict").asText()).as(res.toPrettyString()).isEqualTo("pass");
        assertThat(res.path("testReward").asDouble()).isEqualTo(1.0);
        assertThat(res.path("reward").isNumber()).isTrue();
        assertThat(res.path("reward").asDouble()).as(res.toPrettyString()).isEqualTo(0.0);
        assertThat(r.out()).contains("TimedOut", "reward 0.0");
        assertThat(LocalRuns.processesWith(marker)).isZero();
    }
}
