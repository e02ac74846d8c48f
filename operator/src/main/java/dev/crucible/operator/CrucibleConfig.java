package dev.crucible.operator;

import dev.crucible.controllers.config.CrucibleImages;
import dev.crucible.controllers.config.OperatorSettings;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** {@code crucible.*} settings of the operator (application.properties, env vars, Helm values). */
@ConfigMapping(prefix = "crucible")
public interface CrucibleConfig {

    Verifier verifier();

    Gpu gpu();

    /** uid every rollout pod runs as (non-root). */
    @WithDefault(OperatorSettings.DEFAULT_RUN_AS_USER)
    long runAsUser();

    /** Scheduler name used with the coscheduling plugin's PodGroups. */
    @WithDefault(OperatorSettings.DEFAULT_GANG_SCHEDULER_NAME)
    String gangSchedulerName();

    /** Port of the headless Service of multi-node rollouts (torch rendezvous). */
    @WithDefault(OperatorSettings.DEFAULT_RENDEZVOUS_PORT)
    int rendezvousPort();

    /**
     * A rollout whose pod or gang no node could ever hold fails at once ({@code CannotFit} / {@code GangCannotFit});
     * false where a cluster autoscaler adds nodes on demand (the rollout then waits for its deadline).
     */
    @WithName("scheduling.fail-when-no-node-fits")
    @WithDefault(OperatorSettings.DEFAULT_FAIL_WHEN_NO_NODE_FITS)
    boolean failWhenNoNodeFits();

    /**
     * Rollout pods run in their own user namespace ({@code hostUsers: false}; needs runc 1.2+ or CRI-O 1.30+). Off by
     * default: CRIU cannot yet restore processes into a pod's user namespace, so their memory branches are refused.
     */
    @WithName("rollouts.user-namespaces")
    @WithDefault(OperatorSettings.DEFAULT_USER_NAMESPACES)
    boolean userNamespaces();

    /**
     * The cluster trace store's URL (the chart sets it with {@code traceStore.enabled}): rollout pods then run as the
     * trace writer and their sidecars stream trajectories there (issue 36). Unset: pods record, nothing is shipped.
     */
    @WithName("trace-store.url")
    Optional<String> traceStoreUrl();

    /** The store's namespace, for rollout pods' egress rule to its pods (the chart sets it with the URL). */
    @WithName("trace-store.namespace")
    Optional<String> traceStoreNamespace();

    /** The store's pods' labels, {@code key=value[,key=value…]}: with the namespace, rollout pods may reach them. */
    @WithName("trace-store.pod-selector")
    Optional<String> traceStorePodSelector();

    /** The store pods' port (the policy matches the pod's port, not the Service's). */
    @WithName("trace-store.pod-port")
    @WithDefault("8470")
    int traceStorePodPort();

    /**
     * Bytes of each container's log tail kept in the ConfigMap {@code <rollout>-logs} before the operator deletes a
     * Rollout's pod (issue 41's soak: the sidecar's and agent's logs went with the pod); 0 turns it off.
     */
    @WithName("log-tail-bytes")
    @WithDefault(OperatorSettings.DEFAULT_LOG_TAIL_BYTES)
    int logTailBytes();

    LeaderElection leaderElection();

    Probe probe();

    Webhook webhook();

    Snapshots snapshots();

    /** How the RolloutSnapshot controller reaches the snapshot agent DaemonSet. */
    interface Snapshots {
        /** Namespace of the agent pods; defaults to the operator's own (POD_NAMESPACE). */
        Optional<String> agentNamespace();

        @WithDefault("app.kubernetes.io/component=snapshot-agent")
        String agentSelector();

        @WithDefault("9443")
        int agentPort();

        /** The bearer token the agents accept (the chart mounts their Secret here). */
        @WithDefault("/etc/crucible/snapshot-agent/token")
        String tokenFile();

        /** Longest one agent call may take (a dump of a large member). */
        @WithDefault("300")
        int callTimeoutSeconds();

        /**
         * Mutual TLS to the agents: the operator issues their CA, serving and client certificates
         * (and the manifest HMAC key) into {@link #tlsCaSecret()} / {@link #tlsAgentSecret()}, which
         * the chart creates empty. Agents refuse plaintext off loopback, so a cluster needs this on.
         */
        @WithDefault("true")
        boolean tlsEnabled();

        /** Operator-only Secret: CA key, client certificate and key, HMAC key. */
        @WithDefault("crucible-snapshot-agent-ca")
        String tlsCaSecret();

        /** The agents' Secret: CA certificate, their serving certificate and key, HMAC key. */
        @WithDefault("crucible-snapshot-agent-tls")
        String tlsAgentSecret();

        /** Where the operator keeps its client certificate files (an emptyDir; the root filesystem is read-only). */
        @WithDefault("/tmp/crucible/snapshot-agent-tls")
        String tlsDirectory();

        @WithDefault("365")
        int tlsValidityDays();
    }

    interface Webhook {
        /** The operator's own webhook certificate, for clusters without cert-manager. */
        SelfSigned selfSigned();
    }

    /**
     * The operator issues a CA and serving certificate, keeps them in a Secret shared by its replicas,
     * patches the ValidatingWebhookConfiguration's caBundle and serves {@code /validate} over HTTPS on
     * {@link #port()}. The Helm chart turns it on when cert-manager is not used.
     */
    interface SelfSigned {
        @WithDefault("false")
        boolean enabled();

        /** The Secret (ca.crt, ca.key, tls.crt, tls.key); the chart creates it empty. */
        @WithDefault("crucible-webhook-selfsigned")
        String secretName();

        /** Namespace of the Secret and the Service; defaults to the operator's own (POD_NAMESPACE). */
        Optional<String> namespace();

        /** The ValidatingWebhookConfiguration whose caBundle the operator keeps current. */
        @WithDefault("crucible")
        String webhookConfiguration();

        /** The webhook Service: the certificate names {@code <service>.<namespace>.svc[.<cluster-domain>]}. */
        @WithDefault("crucible-webhook")
        String serviceName();

        @WithDefault("cluster.local")
        String clusterDomain();

        /** More subject alternative names: IP literals become IP SANs, the rest DNS SANs. */
        Optional<List<String>> extraSans();

        @WithDefault("3650")
        int caValidityDays();

        @WithDefault("365")
        int validityDays();

        /** Re-issue when the certificate (or the CA) expires within this many days. */
        @WithDefault("30")
        int renewBeforeDays();

        /** How often every replica re-reads the Secret, re-issues if due, and reloads what it serves. */
        @WithDefault("60")
        int checkIntervalMinutes();

        /** HTTPS port of {@code /validate}. */
        @WithDefault("8443")
        int port();

        /** Where the served certificate and key are written (a writable emptyDir in the pod). */
        @WithDefault("/tmp/crucible-webhook")
        String certDir();
    }

    interface Probe {
        /** Probe server image when a ProbeModel sets no serving.image; unset: {@link CrucibleImages#probeServer()}. */
        Optional<String> serverImage();
    }

    interface Verifier {
        /** Image of the verifier sidecar injected into every rollout pod; unset: {@link CrucibleImages#sidecarVerifier()}. */
        Optional<String> image();

        /** CPU request of the sidecar (and the grading container's request). */
        @WithDefault(OperatorSettings.DEFAULT_VERIFIER_CPU)
        String cpu();

        /** Memory request of the sidecar (and the grading container's request). */
        @WithDefault(OperatorSettings.DEFAULT_VERIFIER_MEMORY)
        String memory();

        /** CPU limit of the sidecar; unset: none, so grading is not throttled to the request. */
        Optional<String> cpuLimit();

        /** Memory limit of the sidecar; unset: the memory request. */
        Optional<String> memoryLimit();

        /** Port of the environment API the sidecar serves. */
        @WithDefault(OperatorSettings.DEFAULT_VERIFIER_PORT)
        int port();
    }

    interface Gpu {
        /**
         * Node labels every GPU pod requires; none set: {@link OperatorSettings#DEFAULT_GPU_NODE_SELECTOR} (a map
         * takes no {@code @WithDefault}: that would be the value of any key, not an entry).
         */
        Map<String, String> nodeSelector();

        /** Tolerations of GPU pods as {@code key[=value]:Effect}, e.g. {@code nvidia.com/gpu:NoSchedule}. */
        @WithDefault(OperatorSettings.DEFAULT_GPU_TOLERATIONS)
        List<String> tolerations();

        /** Label marking GPU nodes; CPU rollouts require it absent. */
        @WithDefault(OperatorSettings.DEFAULT_GPU_NODE_LABEL)
        String nodeLabel();
    }

    interface LeaderElection {
        @WithDefault("crucible-operator-leader")
        String leaseName();

        /** Namespace of the Lease; defaults to the operator's own namespace. */
        Optional<String> leaseNamespace();

        /** The Lease's holder; defaults to {@code POD_NAME} (the chart sets it from the downward API). */
        Optional<String> identity();
    }
}
