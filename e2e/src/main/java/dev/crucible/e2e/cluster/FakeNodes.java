package dev.crucible.e2e.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.LinkedHashMap;
import java.util.Map;

/** kwok-managed fake nodes: CPU nodes, and GPU nodes labelled and tainted the way the NVIDIA GPU operator does. */
public final class FakeNodes {

    public static final String KWOK_LABEL = "type";
    public static final String KWOK_LABEL_VALUE = "kwok";
    public static final String GPU_PRODUCT = "NVIDIA-H100-80GB-HBM3";

    private FakeNodes() {
    }

    /** RuntimeClasses the fake nodes offer (the examples ask for gvisor and nvidia). */
    public static final java.util.List<String> RUNTIME_CLASSES = java.util.List.of("gvisor", "nvidia");

    public static void create(KubernetesClient client, int cpuNodes, int gpuNodes, int gpusPerNode) {
        for (String rc : RUNTIME_CLASSES) {
            client.resources(io.fabric8.kubernetes.api.model.node.v1.RuntimeClass.class).resource(new io.fabric8.kubernetes.api.model.node.v1.RuntimeClassBuilder()
                    .withNewMetadata().withName(rc).endMetadata().withHandler(rc.equals("gvisor") ? "runsc" : rc).build())
                    .createOr(existing -> existing.update());
        }
        for (int i = 0; i < cpuNodes; i++) {
            add(client, node("cpu-" + i, 0));
        }
        for (int i = 0; i < gpuNodes; i++) {
            add(client, node("gpu-" + i, gpusPerNode));
        }
    }

    /** One more CPU node, named, e.g. one a test deletes again (a lost node). */
    public static void createCpuNode(KubernetesClient client, String name) {
        add(client, node(name, 0));
    }

    /**
     * The API server's TaintNodesByCondition admission marks new nodes not-ready; with no node lifecycle
     * controller to lift it, the fake node gets its intended taints back right after creation.
     */
    private static void add(KubernetesClient client, Node node) {
        var intended = node.getSpec() == null ? null : node.getSpec().getTaints();
        client.nodes().resource(node).create();
        client.nodes().withName(node.getMetadata().getName()).edit(n -> {
            n.getSpec().setTaints(intended == null ? new java.util.ArrayList<>() : new java.util.ArrayList<>(intended));
            return n;
        });
    }

    static Node node(String name, int gpus) {
        Map<String, Quantity> capacity = new LinkedHashMap<>();
        capacity.put("cpu", new Quantity("64"));
        capacity.put("memory", new Quantity("256Gi"));
        capacity.put("pods", new Quantity("110"));
        capacity.put("ephemeral-storage", new Quantity("1Ti"));
        NodeBuilder b = new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .addToLabels(KWOK_LABEL, KWOK_LABEL_VALUE)
                .addToLabels("kubernetes.io/hostname", name)
                .addToLabels("kubernetes.io/os", "linux")
                .addToAnnotations("kwok.x-k8s.io/node", "fake")
                .endMetadata();
        if (gpus > 0) {
            capacity.put("nvidia.com/gpu", new Quantity(Integer.toString(gpus)));
            b.editMetadata().addToLabels("nvidia.com/gpu.present", "true")
                    .addToLabels("nvidia.com/gpu.product", GPU_PRODUCT).endMetadata()
                    .withNewSpec().addNewTaint().withKey("nvidia.com/gpu").withValue("present").withEffect("NoSchedule")
                    .endTaint().endSpec();
        }
        // Nodes may carry status on create; kwok then keeps them Ready with heartbeats.
        return b.withNewStatus()
                .withCapacity(capacity)
                .withAllocatable(new LinkedHashMap<>(capacity))
                .addNewCondition().withType("Ready").withStatus("True").withReason("KubeletReady")
                .withMessage("kwok").endCondition()
                .withNewNodeInfo().withKubeletVersion("fake").withArchitecture("amd64").withOperatingSystem("linux")
                .withContainerRuntimeVersion("kwok").withKernelVersion("fake").withOsImage("kwok")
                .withKubeProxyVersion("fake").withMachineID("fake").withSystemUUID("fake").withBootID("fake")
                .endNodeInfo()
                .endStatus().build();
    }

    public static boolean isGpuNode(Node node) {
        return node.getMetadata().getLabels() != null && "true".equals(node.getMetadata().getLabels().get("nvidia.com/gpu.present"));
    }
}
