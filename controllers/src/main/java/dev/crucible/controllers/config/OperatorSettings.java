package dev.crucible.controllers.config;

import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import java.util.List;
import java.util.Map;

/**
 * Operator-wide settings the reconcilers need: the verifier sidecar, GPU placement, and pod identity.
 * The Quarkus app fills it from {@code crucible.*} config; tests build it directly.
 *
 * @param verifierImage        image of the verifier sidecar injected into every rollout pod
 * @param verifierCpu          CPU request of the sidecar (also the grading container's request)
 * @param verifierMemory       memory request of the sidecar (also the grading container's request)
 * @param verifierPort         port of the environment API the sidecar serves
 * @param gpuNodeSelector      node labels every GPU pod requires (e.g. nvidia.com/gpu.present=true)
 * @param gpuTolerations       tolerations every GPU pod gets (GPU nodes are usually tainted)
 * @param gpuNodeLabel         label that marks GPU nodes; CPU pods require it to be absent
 * @param runAsUser            uid rollout pods run as (non-root)
 * @param gangSchedulerName    scheduler to use with PodGroups when a gang scheduler is installed
 * @param rendezvousPort       port of the headless Service of multi-node rollouts (torch rendezvous)
 * @param verifierCpuLimit     CPU limit of the sidecar; null: none (grading is not throttled to its request)
 * @param verifierMemoryLimit  memory limit of the sidecar; null: none
 * @param failWhenNoNodeFits   a rollout whose pod (or gang) no node could ever hold fails at once; false where
 *                             a cluster autoscaler adds nodes on demand (it then waits for its deadline)
 */
public record OperatorSettings(
        String verifierImage,
        String verifierCpu,
        String verifierMemory,
        int verifierPort,
        Map<String, String> gpuNodeSelector,
        List<Toleration> gpuTolerations,
        String gpuNodeLabel,
        long runAsUser,
        String gangSchedulerName,
        int rendezvousPort,
        String verifierCpuLimit,
        String verifierMemoryLimit,
        boolean failWhenNoNodeFits) {

    public static final String DEFAULT_VERIFIER_IMAGE = CrucibleImages.sidecarVerifier();
    public static final String DEFAULT_GPU_NODE_LABEL = "nvidia.com/gpu.present";

    public OperatorSettings {
        gpuNodeSelector = Map.copyOf(gpuNodeSelector);
        gpuTolerations = List.copyOf(gpuTolerations);
    }

    /** Failing at once when no node fits, as on a cluster of fixed nodes. */
    public OperatorSettings(String verifierImage, String verifierCpu, String verifierMemory, int verifierPort,
                            Map<String, String> gpuNodeSelector, List<Toleration> gpuTolerations, String gpuNodeLabel,
                            long runAsUser, String gangSchedulerName, int rendezvousPort, String verifierCpuLimit,
                            String verifierMemoryLimit) {
        this(verifierImage, verifierCpu, verifierMemory, verifierPort, gpuNodeSelector, gpuTolerations, gpuNodeLabel,
                runAsUser, gangSchedulerName, rendezvousPort, verifierCpuLimit, verifierMemoryLimit, true);
    }

    /** The earlier form: the sidecar's limits equal its requests. */
    public OperatorSettings(String verifierImage, String verifierCpu, String verifierMemory, int verifierPort,
                            Map<String, String> gpuNodeSelector, List<Toleration> gpuTolerations, String gpuNodeLabel,
                            long runAsUser, String gangSchedulerName, int rendezvousPort) {
        this(verifierImage, verifierCpu, verifierMemory, verifierPort, gpuNodeSelector, gpuTolerations, gpuNodeLabel,
                runAsUser, gangSchedulerName, rendezvousPort, verifierCpu, verifierMemory, true);
    }

    /** Defaults that match the NVIDIA GPU operator's node labels and the usual GPU taint. */
    public static OperatorSettings defaults() {
        return new OperatorSettings(DEFAULT_VERIFIER_IMAGE, "250m", "256Mi", 8080,
                Map.of(DEFAULT_GPU_NODE_LABEL, "true"),
                List.of(new TolerationBuilder().withKey("nvidia.com/gpu").withOperator("Exists")
                        .withEffect("NoSchedule").build()),
                DEFAULT_GPU_NODE_LABEL, 1000L, "scheduler-plugins-scheduler", 29500, null, "256Mi", true);
    }

    public OperatorSettings withFailWhenNoNodeFits(boolean fail) {
        return new OperatorSettings(verifierImage, verifierCpu, verifierMemory, verifierPort, gpuNodeSelector,
                gpuTolerations, gpuNodeLabel, runAsUser, gangSchedulerName, rendezvousPort, verifierCpuLimit, verifierMemoryLimit, fail);
    }

    public OperatorSettings withVerifierImage(String image) {
        return new OperatorSettings(image, verifierCpu, verifierMemory, verifierPort, gpuNodeSelector,
                gpuTolerations, gpuNodeLabel, runAsUser, gangSchedulerName, rendezvousPort, verifierCpuLimit, verifierMemoryLimit,
                failWhenNoNodeFits);
    }
}
