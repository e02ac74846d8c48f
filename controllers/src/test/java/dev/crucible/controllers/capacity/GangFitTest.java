package dev.crucible.controllers.capacity;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSchedulingGate;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The gang release decision on nodes and pods as the API server returns them. */
class GangFitTest {

    static Node node(String name, int gpus, boolean ready) {
        Map<String, Quantity> alloc = new java.util.HashMap<>(Map.of("cpu", new Quantity("64"), "memory", new Quantity("256Gi"),
                "pods", new Quantity("110")));
        NodeBuilder b = new NodeBuilder().withNewMetadata().withName(name).addToLabels("kubernetes.io/hostname", "host-" + name).endMetadata();
        if (gpus > 0) {
            alloc.put("nvidia.com/gpu", new Quantity(Integer.toString(gpus)));
            b.editMetadata().addToLabels("nvidia.com/gpu.present", "true").endMetadata()
                    .withNewSpec().addNewTaint().withKey("nvidia.com/gpu").withValue("present").withEffect("NoSchedule").endTaint().endSpec();
        }
        return b.withNewStatus().withAllocatable(alloc).addNewCondition().withType("Ready").withStatus(ready ? "True" : "False")
                .endCondition().endStatus().build();
    }

    static Node node(String name, int gpus) {
        return node(name, gpus, true);
    }

    /** A gated gang member asking for GPUs (tolerating the GPU taint, on GPU nodes only) and CPU. */
    static Pod member(String name, int gpus, String cpu) {
        PodBuilder b = new PodBuilder().withNewMetadata().withName(name).withNamespace("ns").endMetadata().withNewSpec()
                .withSchedulingGates(new PodSchedulingGate("crucible.dev/gang"))
                .addToContainers(new ContainerBuilder().withName("agent").withNewResources()
                        .addToRequests("cpu", new Quantity(cpu)).addToLimits("nvidia.com/gpu", new Quantity(Integer.toString(gpus)))
                        .endResources().build())
                .addToContainers(new ContainerBuilder().withName("verifier").withNewResources()
                        .addToRequests("cpu", new Quantity("500m")).addToRequests("memory", new Quantity("1Gi")).endResources().build())
                .endSpec();
        if (gpus > 0) {
            b.editSpec().addToNodeSelector("nvidia.com/gpu.present", "true")
                    .addToTolerations(new TolerationBuilder().withKey("nvidia.com/gpu").withOperator("Exists").withEffect("NoSchedule").build())
                    .endSpec();
        }
        return b.build();
    }

    static Pod boundOn(String node, int gpus) {
        Pod p = member("other-" + node + "-" + gpus, gpus, "1");
        p.getSpec().setSchedulingGates(null);
        p.getSpec().setNodeName(node);
        return p;
    }

    static List<Pod> gang(String prefix, int n, int gpus) {
        List<Pod> out = new ArrayList<>();
        for (int i = 0; i < n; i++) out.add(member(prefix + "-" + i, gpus, "4"));
        return out;
    }

    @Test
    void aGangThatFitsIsPlacedOneMemberPerNodeItNeeds() {
        GangFit.Result r = GangFit.check(gang("a", 2, 8), List.of(node("cpu-0", 0), node("gpu-0", 8), node("gpu-1", 8), node("gpu-2", 8)), List.of());
        assertThat(r.verdict()).isEqualTo(GangFit.Verdict.FITS);
        assertThat(r.placement()).containsOnlyKeys("a-0", "a-1");
        assertThat(new HashSet<>(r.placement().values())).hasSize(2).allSatisfy(h -> assertThat(h).startsWith("gpu-"));
    }

    @Test
    void aGangThatFitsOnlyOnEmptyNodesWaitsAndPlacesNothing() {
        List<Node> nodes = List.of(node("gpu-0", 8), node("gpu-1", 8), node("gpu-2", 8));
        // gpu-0 and gpu-1 half taken: one member would fit (gpu-2), the gang does not
        GangFit.Result r = GangFit.check(gang("a", 2, 8), nodes, List.of(boundOn("gpu-0", 4), boundOn("gpu-1", 4)));
        assertThat(r.verdict()).isEqualTo(GangFit.Verdict.WAIT);
        assertThat(r.placement()).isEmpty();
        assertThat(r.message()).contains("nvidia.com/gpu=8", "1 of 2 members could be placed");
        // small members fill the halves
        assertThat(GangFit.check(gang("b", 3, 4), nodes, List.of(boundOn("gpu-0", 4), boundOn("gpu-1", 4))).verdict())
                .isEqualTo(GangFit.Verdict.FITS);
    }

    @Test
    void aMemberNoNodeCouldEverHoldIsNever() {
        GangFit.Result r = GangFit.check(gang("a", 2, 16), List.of(node("gpu-0", 8), node("gpu-1", 8)), List.of());
        assertThat(r.verdict()).isEqualTo(GangFit.Verdict.NEVER);
        assertThat(r.message()).contains("a-0", "nvidia.com/gpu=16", "largest: nvidia.com/gpu=8");
    }

    @Test
    void aGangLargerThanAllItsNodesTogetherIsNeverEvenWhenEachMemberFitsAlone() {
        GangFit.Result r = GangFit.check(gang("a", 4, 8), List.of(node("cpu-0", 0), node("gpu-0", 8), node("gpu-1", 8), node("gpu-2", 8)), List.of());
        assertThat(r.verdict()).isEqualTo(GangFit.Verdict.NEVER);
        assertThat(r.message()).contains("nvidia.com/gpu=32 in all", "3 nodes", "nvidia.com/gpu=24 together");
    }

    @Test
    void taintsSelectorsAndAffinityDecideWhichNodesCount() {
        Pod noToleration = member("x-0", 8, "1");
        noToleration.getSpec().setTolerations(null);
        assertThat(GangFit.check(List.of(noToleration, member("x-1", 8, "1")), List.of(node("gpu-0", 8), node("gpu-1", 8)), List.of()).message())
                .contains("x-0 matches no node");
        Pod cpu = member("c-0", 0, "8");
        cpu.getSpec().setAffinity(new io.fabric8.kubernetes.api.model.AffinityBuilder().withNewNodeAffinity()
                .withNewRequiredDuringSchedulingIgnoredDuringExecution().addNewNodeSelectorTerm().addNewMatchExpression()
                .withKey("zone").withOperator("In").withValues("b").endMatchExpression().endNodeSelectorTerm()
                .endRequiredDuringSchedulingIgnoredDuringExecution().endNodeAffinity().build());
        Node zoneA = node("cpu-a", 0);
        zoneA.getMetadata().getLabels().put("zone", "a");
        Node zoneB = node("cpu-b", 0);
        zoneB.getMetadata().getLabels().put("zone", "b");
        GangFit.Result r = GangFit.check(List.of(cpu, member("c-1", 0, "8")), List.of(zoneA, zoneB), List.of());
        assertThat(r.verdict()).isEqualTo(GangFit.Verdict.FITS);
        assertThat(r.placement()).containsEntry("c-0", "cpu-b");
        assertThat(GangFit.check(List.of(cpu, member("c-1", 0, "8")), List.of(zoneA), List.of()).verdict()).isEqualTo(GangFit.Verdict.NEVER);
        // the GPU nodes' taint keeps a CPU member off them: 2 x 40 cores fit only on two CPU nodes
        List<Pod> big = List.of(member("d-0", 0, "40"), member("d-1", 0, "40"));
        assertThat(GangFit.check(big, List.of(node("cpu-0", 0), node("gpu-0", 8)), List.of()).verdict()).isEqualTo(GangFit.Verdict.NEVER);
    }

    @Test
    void membersReleasedButNotYetBoundTakeTheirPlaceBeforeTheNextGang() {
        List<Node> nodes = List.of(node("gpu-0", 8), node("gpu-1", 8), node("gpu-2", 8));
        List<Pod> released = gang("a", 2, 8);
        released.forEach(p -> p.getSpec().setSchedulingGates(null)); // let go, the scheduler has not bound them yet
        GangFit.Result second = GangFit.check(gang("b", 2, 8), nodes, released);
        assertThat(second.verdict()).as("only one 8-GPU node is left for a second gang of two").isEqualTo(GangFit.Verdict.WAIT);
        // still gated (another gang waiting like this one) holds nothing
        List<Pod> gated = gang("c", 2, 8);
        assertThat(GangFit.check(gang("b", 2, 8), nodes, gated).verdict()).isEqualTo(GangFit.Verdict.FITS);
    }

    @Test
    void aNodeThatIsNotReadyCountsForSomeDayButNotForNow() {
        List<Node> nodes = List.of(node("gpu-0", 8), node("gpu-1", 8, false));
        assertThat(GangFit.check(gang("a", 2, 8), nodes, List.of()).verdict()).isEqualTo(GangFit.Verdict.WAIT);
        Node cordoned = node("gpu-1", 8);
        cordoned.getSpec().setUnschedulable(true);
        assertThat(GangFit.check(gang("a", 2, 8), List.of(node("gpu-0", 8), cordoned), List.of()).verdict()).isEqualTo(GangFit.Verdict.WAIT);
    }

    @Test
    void requestsCountSidecarsInitContainersAndOverheadAsTheSchedulerDoes() {
        Pod p = member("p", 0, "2");
        p.getSpec().setInitContainers(List.of(
                new ContainerBuilder().withName("sidecar").withRestartPolicy("Always").withNewResources()
                        .addToRequests("cpu", new Quantity("1")).endResources().build(),
                new ContainerBuilder().withName("init").withNewResources().addToRequests("cpu", new Quantity("6")).endResources().build()));
        p.getSpec().setOverhead(Map.of("cpu", new Quantity("250m")));
        Map<String, BigDecimal> r = PodRequests.of(p);
        // running: 2 + 0.5 + sidecar 1 = 3.5; during init: sidecar 1 + 6 = 7; plus overhead
        assertThat(r.get("cpu")).isEqualByComparingTo("7.25");
        assertThat(r.get("memory")).isEqualByComparingTo(BigDecimal.valueOf(1L << 30));
        assertThat(r.get("pods")).isEqualByComparingTo("1");
    }
}
