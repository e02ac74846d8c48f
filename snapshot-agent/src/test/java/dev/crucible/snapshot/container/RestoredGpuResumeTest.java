package dev.crucible.snapshot.container;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The parts of the GPU resume after a runtime restore that run without a GPU: which pod a restore's
 * workspace belongs to, and that processes outside that pod are never touched (a wrong match would
 * toggle, and so checkpoint, some other process's CUDA state).
 */
class RestoredGpuResumeTest {
    @Test
    void thePodIsTheOneWhoseKubeletFolderHoldsTheWorkspace() {
        assertThat(RestoredGpuResume.podUidOf("/var/lib/kubelet/pods/5c446e3b-98d2-4dec-b511-717439a3f19c/volumes/kubernetes.io~empty-dir/workspace"))
                .isEqualTo("5c446e3b-98d2-4dec-b511-717439a3f19c");
        assertThat(RestoredGpuResume.podUidOf("/tmp/workspace")).isNull();
        assertThat(RestoredGpuResume.podUidOf("/var/lib/kubelet/pods/not-a-uid/volumes/x")).isNull();
    }

    @Test
    void processesOutsideThePodAreNeverMatched() {
        long self = ProcessHandle.current().pid();
        // this JVM's own innermost pid is in the set, but it runs in no pod with that UID
        String noSuchPod = java.util.UUID.randomUUID().toString();
        assertThat(RestoredGpuResume.matching(Path.of("/proc"), noSuchPod, Set.of(self, 1L))).isEmpty();
    }
}
