package dev.crucible.snapshot.criu;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class CriuArgsTest {

    @Test
    void finalDumpChainsToThePreviousPreDumpAndLeavesTheFrozenCgroupToUs() {
        var o = new CriuArgs.DumpOptions(true, true, false, false, false);
        assertThat(CriuArgs.dump(42, Path.of("/s/images/final"), "../pre-2", o, Path.of("/cg/tree"), true))
                .containsExactly("--tree", "42", "--images-dir", "/s/images/final", "--prev-images-dir", "../pre-2",
                        "--track-mem", "--tcp-established", "--freeze-cgroup", "/cg/tree", "--leave-running");
    }

    @Test
    void restoreIsDetachedWritesAPidFileAndIgnoresCgroups() {
        assertThat(CriuArgs.restore(Path.of("/s/images/final"), Path.of("/w/pid"), false, false))
                .containsExactly("--images-dir", "/s/images/final", "--restore-detached", "--pidfile", "/w/pid",
                        "--manage-cgroups=ignore");
    }
}
