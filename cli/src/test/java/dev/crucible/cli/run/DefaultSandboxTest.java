package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Snapshots must never weaken a run that did not ask for them: without --snapshot-every the agent stays under bubblewrap. */
class DefaultSandboxTest {
    @Test
    void runsWithoutSnapshotFlagsKeepBubblewrapAndPublishNoState(@TempDir Path tmp) throws Exception {
        assumeTrue(dev.crucible.verifier.sandbox.Box.availability().ok(), "bubblewrap (bwrap) is not installed");
        Path env = LocalRuns.withoutSetup(LocalRuns.copyExample(tmp.resolve("env"), null));
        LocalRuns.Run r = LocalRuns.run("-f", env.toString(), "--agent-cmd", "sh ../agents/honest.sh", "--out", tmp.resolve("run").toString());
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        var res = LocalRuns.json(tmp.resolve("run/result.json"));
        assertThat(res.get("sandbox").asText()).isEqualTo("bubblewrap");
        assertThat(res.has("snapshots")).isFalse();
        assertThat(r.out()).doesNotContain("snapshot-able");
        assertThat(tmp.resolve("run").resolve(RunningRollout.FILE)).doesNotExist();
    }
}
