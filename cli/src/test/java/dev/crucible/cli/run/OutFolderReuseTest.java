package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * One run per {@code --out} folder (host round 4, B2): a second run into a finished run's folder overwrote its result
 * (a Succeeded 1.0 became a LocalRunError), and a run into a folder another run was writing broke that run's trajectory.
 * Real runs of the example: the second is refused with exit 2 and the first's result.json is byte for byte the same;
 * a folder another run holds (its lock taken here) is refused before anything is written.
 */
@Timeout(600)
class OutFolderReuseTest {
    @Test
    void aFolderThatHoldsARunIsRefusedAndItsResultKept(@TempDir Path dir) throws Exception {
        Path env = LocalRuns.withoutSetup(LocalRuns.copyExample(dir.resolve("env"), null));
        Path out = dir.resolve("out");
        LocalRuns.Run first = LocalRuns.run("-f", env.toString(), "--agent-cmd", "true", "--out", out.toString());
        assertThat(first.exit()).as(first.out() + first.err()).isZero();
        byte[] result = Files.readAllBytes(out.resolve("result.json"));

        LocalRuns.Run second = LocalRuns.run("-f", env.toString(), "--agent-cmd", "true", "--out", out.toString());
        assertThat(second.exit()).as(second.out() + second.err()).isEqualTo(2);
        assertThat(second.err()).contains("--out: ").contains("already holds a run (result.json)");
        assertThat(Files.readAllBytes(out.resolve("result.json"))).isEqualTo(result);
    }

    @Test
    void aFolderAnotherRunHoldsIsRefusedBeforeAnythingIsWritten(@TempDir Path dir) throws Exception {
        Path env = LocalRuns.withoutSetup(LocalRuns.copyExample(dir.resolve("env"), null));
        Path out = Files.createDirectories(dir.resolve("out"));
        try (OutLock held = OutLock.take(out)) {
            LocalRuns.Run r = LocalRuns.run("-f", env.toString(), "--agent-cmd", "true", "--out", out.toString());
            assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(2);
            assertThat(r.err()).contains("is in use by another crucible run");
            try (var s = Files.list(out)) {
                assertThat(s.map(p -> p.getFileName().toString()).toList()).containsExactly(OutLock.LOCK_FILE);
            }
        }
    }
}
