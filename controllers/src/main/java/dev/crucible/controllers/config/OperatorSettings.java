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
 * @param userNamespaces       rollout pods run in their own user namespace ({@code hostUsers: false}): the agent's
 *                             uids map to unprivileged host uids, so an escape lands as nobody on the node; the
 *                             node needs Kubernetes 1.33+ (or the gate), a runtime with idmapped mounts (runc 1.2+).
 *                             Off by default: CRIU cannot yet restore such a pod's processes (memory branches)
 * @param traceStoreUrl        the cluster trace store's URL (the chart's {@code traceStore}), or null: with it each rollout
 *                             pod's sidecar streams its trajectory there as {@link #TRACE_WRITER} of the Rollout's namespace
 * @param traceStorePeer       the store's pods (namespace, labels, port), or null: with it and the URL, rollout pods' egress
 *                             policy also allows those pods on that port, and nothing else more
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
        boolean failWhenNoNodeFits,
        boolean userNamespaces,
        String traceStoreUrl,
        TraceStorePeer traceStorePeer,
        int logTailBytes) {

    /** The ServiceAccount rollout pods run as when a trace store is set: the store accepts this name's tokens as writers. */
    public static final String TRACE_WRITER = "crucible-trace-writer";
    /** The audience of the projected token the sidecar sends the store (useless against the API server). */
    public static final String TRACE_AUDIENCE = "crucible-trace-store";

    public OperatorSettings(String verifierImage, String verifierCpu, String verifierMemory, int verifierPort,
                            Map<String, String> gpuNodeSelector, List<Toleration> gpuTolerations, String gpuNodeLabel,
                            long runAsUser, String gangSchedulerName, int rendezvousPort, String verifierCpuLimit,
                            String verifierMemoryLimit, boolean failWhenNoNodeFits, boolean userNamespaces) {
        this(verifierImage, verifierCpu, verifierMemory, verifierPort, gpuNodeSelector, gpuTolerations, gpuNodeLabel,
                runAsUser, gangSchedulerName, rendezvousPort, verifierCpuLimit, verifierMemoryLimit, failWhenNoNodeFits, userNamespaces, null, null, 0);
    }

    public static final String DEFAULT_VERIFIER_IMAGE = CrucibleImages.sidecarVerifier();
    // The defaults, written once: the operator's @WithDefault annotations (CrucibleConfig) name these
    // constants, and defaults() below parses the same strings.
    public static final String DEFAULT_VERIFIER_CPU = "250m";
    public static final String DEFAULT_VERIFIER_MEMORY = "256Mi";
    public static final String DEFAULT_VERIFIER_PORT = "8080";
    public static final String DEFAULT_GPU_NODE_LABEL = "nvidia.com/gpu.present";
    public static final String DEFAULT_GPU_NODE_SELECTOR = DEFAULT_GPU_NODE_LABEL + "=true";
    public static final String DEFAULT_GPU_TOLERATIONS = "nvidia.com/gpu:NoSchedule";
    public static final String DEFAULT_RUN_AS_USER = "1000";
    public static final String DEFAULT_GANG_SCHEDULER_NAME = "scheduler-plugins-scheduler";
    public static final String DEFAULT_RENDEZVOUS_PORT = "29500";
    public static final String DEFAULT_FAIL_WHEN_NO_NODE_FITS = "true";
    public static final String DEFAULT_USER_NAMESPACES = "false";
    /**
     * The deployed operator's log-tail bound. The one default that {@link #defaults()} does not take: it also serves the
     * in-process operator of the API-server tier, whose kwok nodes serve no logs (each read would wait out its bound).
     */
    public static final String DEFAULT_LOG_TAIL_BYTES = "16384";

    public OperatorSettings {
        gpuNodeSelector = Map.copyOf(gpuNodeSelector);
        gpuTolerations = List.copyOf(gpuTolerations);
    }

    /** Failing at once when no node fits, as on a cluster of fixed nodes; user namespaces as by default. */
    public OperatorSettings(String verifierImage, String verifierCpu, String verifierMemory, int verifierPort,
                            Map<String, String> gpuNodeSelector, List<Toleration> gpuTolerations, String gpuNodeLabel,
                            long runAsUser, String gangSchedulerName, int rendezvousPort, String verifierCpuLimit,
                            String verifierMemoryLimit) {
        this(verifierImage, verifierCpu, verifierMemory, verifierPort, gpuNodeSelector, gpuTolerations, gpuNodeLabel,
                runAsUser, gangSchedulerName, rendezvousPort, verifierCpuLimit, verifierMemoryLimit, true,
                Boolean.parseBoolean(DEFAULT_USER_NAMESPACES));
    }

    /** The earlier form: the sidecar's limits equal its requests. */
    public OperatorSettings(String verifierImage, String verifierCpu, String verifierMemory, int verifierPort,
                            Map<String, String> gpuNodeSelector, List<Toleration> gpuTolerations, String gpuNodeLabel,
                            long runAsUser, String gangSchedulerName, int rendezvousPort) {
        this(verifierImage, verifierCpu, verifierMemory, verifierPort, gpuNodeSelector, gpuTolerations, gpuNodeLabel,
                runAsUser, gangSchedulerName, rendezvousPort, verifierCpu, verifierMemory);
    }

    /** Defaults that match the NVIDIA GPU operator's node labels and the usual GPU taint (the DEFAULT_* strings). */
    public static OperatorSettings defaults() {
        String[] selector = DEFAULT_GPU_NODE_SELECTOR.split("=", 2);
        return new OperatorSettings(DEFAULT_VERIFIER_IMAGE, DEFAULT_VERIFIER_CPU, DEFAULT_VERIFIER_MEMORY,
                Integer.parseInt(DEFAULT_VERIFIER_PORT), Map.of(selector[0], selector[1]), tolerations(List.of(DEFAULT_GPU_TOLERATIONS)),
                DEFAULT_GPU_NODE_LABEL, Long.parseLong(DEFAULT_RUN_AS_USER), DEFAULT_GANG_SCHEDULER_NAME,
                Integer.parseInt(DEFAULT_RENDEZVOUS_PORT), null, DEFAULT_VERIFIER_MEMORY, Boolean.parseBoolean(DEFAULT_FAIL_WHEN_NO_NODE_FITS),
                Boolean.parseBoolean(DEFAULT_USER_NAMESPACES));
    }

    /** Tolerations written {@code key[=value][:Effect]}; without a value one matches any (operator Exists), as Helm values and
     * {@code crucible.gpu.tolerations} give them. */
    public static List<Toleration> tolerations(List<String> specs) {
        List<Toleration> result = new java.util.ArrayList<>();
        for (String spec : specs) {
            String s = spec.trim();
            if (s.isEmpty()) {
                continue;
            }
            String effect = null;
            int colon = s.lastIndexOf(':');
            if (colon > 0) {
                effect = s.substring(colon + 1);
                s = s.substring(0, colon);
            }
            int eq = s.indexOf('=');
            TolerationBuilder t = new TolerationBuilder().withEffect(effect);
            if (eq > 0) {
                t.withKey(s.substring(0, eq)).withOperator("Equal").withValue(s.substring(eq + 1));
            } else {
                t.withKey(s).withOperator("Exists");
            }
            result.add(t.build());
        }
        return result;
    }

    public OperatorSettings withFailWhenNoNodeFits(boolean fail) {
        return new OperatorSettings(verifierImage, verifierCpu, verifierMemory, verifierPort, gpuNodeSelector,
                gpuTolerations, gpuNodeLabel, runAsUser, gangSchedulerName, rendezvousPort, verifierCpuLimit, verifierMemoryLimit, fail,
                userNamespaces, traceStoreUrl, traceStorePeer, logTailBytes);
    }

    public OperatorSettings withUserNamespaces(boolean on) {
        return new OperatorSettings(verifierImage, verifierCpu, verifierMemory, verifierPort, gpuNodeSelector,
                gpuTolerations, gpuNodeLabel, runAsUser, gangSchedulerName, rendezvousPort, verifierCpuLimit, verifierMemoryLimit,
                failWhenNoNodeFits, on, traceStoreUrl, traceStorePeer, logTailBytes);
    }

    public OperatorSettings withVerifierImage(String image) {
        return new OperatorSettings(image, verifierCpu, verifierMemory, verifierPort, gpuNodeSelector,
                gpuTolerations, gpuNodeLabel, runAsUser, gangSchedulerName, rendezvousPort, verifierCpuLimit, verifierMemoryLimit,
                failWhenNoNodeFits, userNamespaces, traceStoreUrl, traceStorePeer, logTailBytes);
    }

    /** With the trace store at {@code url} (null: none). */
    public OperatorSettings withTraceStore(String url) {
        return new OperatorSettings(verifierImage, verifierCpu, verifierMemory, verifierPort, gpuNodeSelector,
                gpuTolerations, gpuNodeLabel, runAsUser, gangSchedulerName, rendezvousPort, verifierCpuLimit, verifierMemoryLimit,
                failWhenNoNodeFits, userNamespaces, url == null || url.isBlank() ? null : url.strip(), traceStorePeer, logTailBytes);
    }

    /** With rollout pods' egress to the store's pods allowed ({@code peer} null: no such rule). */
    public OperatorSettings withTraceStorePeer(TraceStorePeer peer) {
        return new OperatorSettings(verifierImage, verifierCpu, verifierMemory, verifierPort, gpuNodeSelector,
                gpuTolerations, gpuNodeLabel, runAsUser, gangSchedulerName, rendezvousPort, verifierCpuLimit, verifierMemoryLimit,
                failWhenNoNodeFits, userNamespaces, traceStoreUrl, peer, logTailBytes);
    }

    /**
     * Keeping up to {@code bytes} of each container's log tail in {@code <rollout>-logs} before a pod is
     * deleted (0: off; {@code crucible.log-tail-bytes}, on in the operator by default; off in the in-process
     * operator of the API-server tier, whose kwok nodes serve no logs).
     */
    public OperatorSettings withLogTailBytes(int bytes) {
        return new OperatorSettings(verifierImage, verifierCpu, verifierMemory, verifierPort, gpuNodeSelector,
                gpuTolerations, gpuNodeLabel, runAsUser, gangSchedulerName, rendezvousPort, verifierCpuLimit, verifierMemoryLimit,
                failWhenNoNodeFits, userNamespaces, traceStoreUrl, traceStorePeer, Math.max(0, bytes));
    }
}
