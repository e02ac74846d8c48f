package dev.crucible.verifier;

import dev.crucible.verifier.pristine.TreeRemoval;
import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.verifier.support.Fixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * rt34 many-files: an episode whose grading tree holds tens of thousands of agent files closes within a bound; the
 * tree's removal goes on after it (a detached rm -rf) instead of holding the CLI. Before, close joined the removal,
 * which took minutes on a disk that discards on unlink (150,000 files: the CLI never exited after result.json).
 */
class ManyFilesCloseTest {
    private static final int DIRS = 40;
    private static final int PER_DIR = 1000;

    @Test
    @Timeout(600)
    void closeIsBoundedWhateverTheGradingTreeHolds(@TempDir Path dir) throws Exception {
        Environment env = Environment.load(Fixtures.copyExample(dir));
        Path ws = env.workspacePath().orElseThrow();
        Path stateDir;
        Duration close;
        Episode ep = new Episode(env, ws, EpisodeOptions.defaults().withIntervals(Duration.ofMillis(500), Duration.ofMillis(200)));
        try {
            ep.reset();
            for (int d = 0; d < DIRS; d++) { // as the agent would, after reset
                Path p = Files.createDirectories(ws.resolve("gen/d" + d));
                for (int i = 0; i < PER_DIR; i++) Files.writeString(p.resolve("f" + i + ".txt"), "x = 1\n");
            }
            ep.verify();
            stateDir = ep.stateDir();
        } finally {
            long t0 = System.nanoTime();
            ep.close();
            close = Duration.ofNanos(System.nanoTime() - t0);
        }
        assertThat(close).as("close took").isLessThan(TreeRemoval.CLOSE_WAIT.plusSeconds(15));
        assertThat(Files.exists(stateDir)).as("state folder after close").isFalse();
    }
}
