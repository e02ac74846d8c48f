package dev.crucible.snapshot.target;

import dev.crucible.snapshot.client.api.TargetSpec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ContainerCgroupPathsTest {

    static final String UID = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";
    static final String CID = "containerd://" + "ab".repeat(32);

    @Test
    void listsSystemdAndCgroupfsLayoutsForEveryQosClass() {
        List<String> c = ContainerCgroupPaths.candidates(UID, CID);
        String id = "ab".repeat(32);
        assertThat(c).contains(
                "kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod0f1e2d3c_4b5a_6978_8796_a5b4c3d2e1f0.slice/cri-containerd-" + id + ".scope",
                "kubepods.slice/kubepods-pod0f1e2d3c_4b5a_6978_8796_a5b4c3d2e1f0.slice/cri-containerd-" + id + ".scope",
                "kubepods/besteffort/pod" + UID + "/" + id,
                "kubepods/pod" + UID + "/" + id);
        assertThat(ContainerCgroupPaths.candidates(UID, "cri-o://" + id).get(0)).endsWith("/crio-" + id + ".scope");
    }

    @Test
    void refusesIdsThatCouldWalkTheCgroupTree() {
        assertThatThrownBy(() -> ContainerCgroupPaths.candidates("../../etc", CID)).hasMessageContaining("target.podUid");
        assertThatThrownBy(() -> ContainerCgroupPaths.candidates(UID, "containerd://../x")).hasMessageContaining("target.containerId");
        assertThatThrownBy(() -> ContainerCgroupPaths.candidates(UID, "rkt://" + "ab".repeat(32))).hasMessageContaining("not supported");
    }

    @Test
    void resolverFindsTheContainerCgroupInAFakeTree(@TempDir Path root) throws Exception {
        Process sleeper = new ProcessBuilder("sleep", "30").start();
        try {
            Path cg = root.resolve(ContainerCgroupPaths.candidates(UID, CID).get(1));
            Files.createDirectories(cg);
            Files.writeString(cg.resolve("cgroup.procs"), sleeper.pid() + "\n");
            ResolvedTarget t = new TargetResolver(root).resolve(new TargetSpec(null, null, UID, CID));
            assertThat(t.cgroup()).isEqualTo(cg);
            assertThat(t.root().pid()).isEqualTo(sleeper.pid());
            assertThatThrownBy(() -> new TargetResolver(root).resolve(new TargetSpec(null, "../../etc", null, null)))
                    .hasMessageContaining("resolves outside");
            assertThatThrownBy(() -> new TargetResolver(root).resolve(new TargetSpec(5L, "x", null, null)))
                    .hasMessageContaining("exactly one");
        } finally {
            sleeper.destroyForcibly();
        }
    }

    @Test
    void onACgroupV1HostTheContainerIsFoundInAV1HierarchyAndFrozenBySignal(@TempDir Path root) throws Exception {
        // a hybrid host as the real node showed it: kubelet's pods under the v1 hierarchies, none under the v2 mount
        Process sleeper = new ProcessBuilder("sleep", "30").start();
        try {
            Path unified = Files.createDirectories(root.resolve("unified"));
            Path pids = root.resolve("pids");
            // cgroupfs driver, burstable, under kubelet's cgroupRoot (/crucible-real-0 on the real node)
            Path cg = pids.resolve("crucible-real-0").resolve(ContainerCgroupPaths.candidates(UID, CID).get(4));
            Files.createDirectories(pids.resolve("crucible-real-0/kubepods/besteffort"));
            Files.createDirectories(pids.resolve("other-slice/unrelated"));
            Files.createDirectories(cg);
            Files.writeString(cg.resolve("cgroup.procs"), sleeper.pid() + "\n");
            ResolvedTarget t = new TargetResolver(unified, List.of(pids)).resolve(new TargetSpec(null, null, UID, CID));
            assertThat(t.root().pid()).isEqualTo(sleeper.pid());
            assertThat(t.cgroup()).as("v1 has no cgroup.freeze: SIGSTOP").isNull();
            assertThat(t.description()).contains("cgroup v1").contains(cg.toString());
            // without the v1 hierarchies the error names where it looked
            assertThatThrownBy(() -> new TargetResolver(unified).resolve(new TargetSpec(null, null, UID, CID)))
                    .hasMessageContaining("no cgroup for pod " + UID);
        } finally {
            sleeper.destroyForcibly();
        }
        assertThat(CgroupMounts.cgroupV1In(List.of(
                "35 25 0:30 / /sys/fs/cgroup/unified rw,relatime shared:10 - cgroup2 cgroup2 rw",
                "37 25 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory",
                "36 25 0:31 / /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids"))).containsExactly(Path.of("/sys/fs/cgroup/pids"), Path.of("/sys/fs/cgroup/memory"));
    }

    @Test
    void findsTheCgroup2MountOnHybridAndUnifiedHosts() {
        assertThat(CgroupMounts.cgroup2In(List.of(
                "35 25 0:30 / /sys/fs/cgroup/unified rw,relatime shared:10 - cgroup2 cgroup2 rw",
                "36 25 0:31 / /sys/fs/cgroup/freezer rw - cgroup cgroup rw,freezer"))).contains(Path.of("/sys/fs/cgroup/unified"));
        assertThat(CgroupMounts.cgroup2In(List.of("30 1 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw"))).contains(Path.of("/sys/fs/cgroup"));
        assertThat(CgroupMounts.cgroup2In(List.of("1 0 8:1 / / rw - ext4 /dev/sda1 rw"))).isEmpty();
    }
}
