package dev.crucible.snapshot.target;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The cluster scope over a tree read a moment earlier: a child that exited since (a shell's sleep, as
 * the agent container's wrapper runs while it waits for the sidecar) is not a reason to refuse the
 * snapshot, while a live process outside any pod still is.
 */
class PodCgroupScopeTest {
    private final PodCgroupScope scope = new PodCgroupScope(new ProcCgroups(ProcessHandle.current().pid(), List.of("/")));

    @Test
    void aProcessThatExitedSinceTheTreeWasReadIsSkipped() throws Exception {
        Process p = new ProcessBuilder("sleep", "0.1").start();
        ProcessRef gone = ProcessRef.of(p.pid());
        assertThat(p.waitFor(5, TimeUnit.SECONDS)).isTrue();
        scope.check(new ResolvedTarget(gone, List.of(gone), null, "test tree"));
    }

    @Test
    void aLiveProcessOutsideAnyPodIsStillRefused() throws Exception {
        Process p = new ProcessBuilder("sleep", "5").start();
        try {
            ProcessRef live = ProcessRef.of(p.pid());
            assertThatThrownBy(() -> scope.check(new ResolvedTarget(live, List.of(live), null, "test tree")))
                    .isInstanceOf(TargetOutOfScopeException.class).hasMessageContaining("not in a pod's cgroup");
        } finally {
            p.destroyForcibly();
        }
    }
}
