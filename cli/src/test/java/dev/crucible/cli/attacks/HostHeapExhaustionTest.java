package dev.crucible.cli.attacks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 34, host round 8 case 32 (the CLI's memory grows with the agent's file count): the host holds a name per agent
 * file while it grades and keeps, so some count of files fills any heap. Past it the run must still end with a
 * result.json that says so. Before, the attempt's thread died of the OutOfMemoryError and the run ended with none (a
 * NullPointerException in the group summary); with the error caught, the result was written in 2 runs of 4 (the write itself
 * ran out: other threads took what the grading let go). Now a reserve is let go first, and a smaller result is the last
 * resort. 40,000 files with 450-byte paths against a 40 MiB heap.
 */
class HostHeapExhaustionTest {

    @Test
    void aRunWhoseFilesFillTheHostsHeapStillWritesAResultThatSaysSo() throws Exception {
        CliProcess.assumeRoot();
        CliProcess.assumeBubblewrapFor(null);
        try (HostSideRun r = new HostSideRun(null, "many-names")) {
            r.env("MANY_NAMES_DIRS", "40");
            r.rollout("many-names", 180);
            HostSideRun.Ended end = r.runInOwnTmp(300, Map.of(CliProcess.HEAP, "40m"));
            String ctx = r.context(end);
            assertThat(r.agentLog()).as("the attack ran: " + ctx).contains("PLANTED: 40000 files");
            assertThat(end.killedByTest()).as("the CLI ended by itself: " + ctx).isFalse();
            JsonNode result = r.result();
            assertThat(result).as("result.json written: " + ctx).isNotNull();
            assertThat(result.path("phase").asText()).as(ctx).isEqualTo("Failed");
            assertThat(result.path("message").asText()).as(ctx).contains("ran out of memory").contains("-Xmx");
            // not asserted: a box watcher that died of the same error leaves its cgroups (the next run sweeps them) and folder
        }
    }
}
