package dev.crucible.operator;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** {@code crucible.*} settings of the operator (application.properties, env vars, Helm values). */
@ConfigMapping(prefix = "crucible")
public interface CrucibleConfig {

    Verifier verifier();

    Gpu gpu();

    /** uid every rollout pod runs as (non-root). */
    @WithDefault("1000")
    long runAsUser();

    /** Scheduler name used with the coscheduling plugin's PodGroups. */
    @WithDefault("scheduler-plugins-scheduler")
    String gangSchedulerName();

    /** Port of the headless Service of multi-node rollouts (torch rendezvous). */
    @WithDefault("29500")
    int rendezvousPort();

    LeaderElection leaderElection();

    Probe probe();

    interface Probe {
        /** Probe server image when a ProbeModel sets no serving.image. */
        @WithDefault("ghcr.io/crucible-dev/crucible-probe-server:0.1.0")
        String serverImage();
    }

    interface Verifier {
        /** Image of the verifier sidecar injected into every rollout pod. */
        @WithDefault("ghcr.io/crucible-dev/sidecar-verifier:0.1.0")
        String image();

        @WithDefault("250m")
        String cpu();

        @WithDefault("256Mi")
        String memory();

        /** Port of the environment API the sidecar serves. */
        @WithDefault("8080")
        int port();
    }

    interface Gpu {
        /** Node labels every GPU pod requires. */
        @WithDefault("nvidia.com/gpu.present=true")
        Map<String, String> nodeSelector();

        /** Tolerations of GPU pods as {@code key[=value]:Effect}, e.g. {@code nvidia.com/gpu:NoSchedule}. */
        @WithDefault("nvidia.com/gpu:NoSchedule")
        List<String> tolerations();

        /** Label marking GPU nodes; CPU rollouts require it absent. */
        @WithDefault("nvidia.com/gpu.present")
        String nodeLabel();
    }

    interface LeaderElection {
        @WithDefault("crucible-operator-leader")
        String leaseName();

        /** Namespace of the Lease; defaults to the operator's own namespace. */
        Optional<String> leaseNamespace();
    }
}
