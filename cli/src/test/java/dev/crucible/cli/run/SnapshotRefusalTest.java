package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 34 point 4: --snapshot-every used to run the agent outside its box (host root with every capability
 * when the CLI is root, the snapshot sealing key readable). Until a box CRIU can dump exists, the mode is
 * refused before anything runs, with the reason and the alternative; runs without it keep their box.
 */
class SnapshotRefusalTest {

    @Test
    void snapshotEveryIsRefusedBeforeAnythingRunsNamingWhyAndTheAlternative(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("out");
        Path marker = tmp.resolve("agent-ran");
        LocalRuns.Run r = LocalRuns.run("-f", LocalRuns.example().toString(), "--agent-cmd", "touch " + marker,
                "--snapshot-every", "30s", "--snapshot-store", tmp.resolve("store").toString(), "--out", out.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(RunCommand.EXIT_INVALID);
        assertThat(r.err()).contains("--snapshot-every: refused before anything ran")
                .contains("CRIU cannot dump a bubblewrap box")
                .contains(dev.crucible.snapshot.store.ManifestKey.defaultLocalFile().toString())
                .contains("workspace-only snapshots").contains("include: {memory: false}");
        assertThat(out).as("no attempt folder: nothing ran").doesNotExist();
        assertThat(marker).as("the agent never started").doesNotExist();
        assertThat(Files.exists(tmp.resolve("store"))).as("no snapshot store made").isFalse();
    }

    @Test
    void aBadDurationIsStillNamedFirst(@TempDir Path tmp) {
        LocalRuns.Run r = LocalRuns.run("-f", LocalRuns.example().toString(), "--agent-cmd", "true", "--snapshot-every", "5x",
                "--out", tmp.resolve("out").toString());
        assertThat(r.exit()).isEqualTo(RunCommand.EXIT_INVALID);
        assertThat(r.err()).contains("--snapshot-every: expected a duration such as 30s").doesNotContain("refused");
    }
}
