package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the agent leaves does not size what the host writes outside the disk limit (host round 8, cases 29 and 30: 150,000
 * FIFOs with long names made result.json 81 MB, every FIFO listed in droppedFromGrading, and the console, which reads at
 * most 16 MiB of it, showed a Hacked run with no finding). A real run whose agent makes 12,000 FIFOs: the result lists
 * 500 and says how many more, and not-kept.txt (where the run kept its workspace off a volume) at most its line cap.
 */
class ManyFifosResultTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(300)
    void twelveThousandFifosAreCountedNotListed() throws Exception {
        String agent = "python3 -c \\\"import os; os.makedirs('fifos'); [os.mkfifo('fifos/f%05d-' % i + 'n' * 200) for i in range(12000)]\\\"";
        Path env = LocalRuns.withoutSetup(LocalRuns.copyExample(dir.resolve("env"), LocalRuns.rollout("fifos", "embedded", agent, 240)));
        Path out = dir.resolve("out");
        LocalRuns.Run r = LocalRuns.run("-f", env.toString(), "--out", out.toString());
        Path result;
        try (var s = Files.walk(out, 4)) {
            result = s.filter(f -> f.getFileName().toString().equals("result.json")).findFirst().orElseThrow(() -> new AssertionError(r.out() + r.err()));
        }
        JsonNode res = new ObjectMapper().readTree(result.toFile());
        JsonNode dropped = res.path("verifierReport").path("tamper").path("droppedFromGrading");
        assertThat(dropped.size()).as(r.out()).isEqualTo(dev.crucible.verifier.VerifyReport.Tamper.MAX_LISTED + 1);
        assertThat(dropped.get(dropped.size() - 1).asText()).isEqualTo("(and 11500 more left out of grading, not listed)");
        assertThat(Files.size(result)).as("result.json").isLessThan(1L << 20);
        Path notKept = result.resolveSibling("not-kept.txt");
        if (Files.exists(notKept)) {
            List<String> lines = Files.readAllLines(notKept);
            assertThat(lines.size()).isLessThanOrEqualTo(VolumeKeeper.NOT_KEPT_LINES + 1);
            if (lines.size() > VolumeKeeper.NOT_KEPT_LINES) assertThat(lines.get(lines.size() - 1)).isEqualTo("(and 2000 more not kept, not listed)");
        }
    }
}
