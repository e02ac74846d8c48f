package dev.crucible.operator;

import dev.crucible.contract.PhaseName;
import dev.crucible.controllers.snapshot.DaemonSetAgents;
import dev.crucible.controllers.snapshot.SnapshotAgentSettings;
import dev.crucible.controllers.snapshot.SnapshotAgents;
import io.fabric8.kubernetes.client.KubernetesClient;
import dev.crucible.api.validation.ManifestValidator;
import dev.crucible.controllers.admission.AdmissionReviewer;
import dev.crucible.controllers.config.CrucibleImages;
import dev.crucible.controllers.config.OperatorSettings;
import dev.crucible.controllers.config.TraceStorePeer;
import dev.crucible.controllers.environment.EnvironmentValidation;
import dev.crucible.controllers.metrics.ControllerMetrics;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/** Wires the framework-free pieces of the controllers module into CDI. */
public class OperatorBeans {

    @Produces
    @Singleton
    OperatorSettings settings(CrucibleConfig config) {
        return new OperatorSettings(config.verifier().image().orElseGet(CrucibleImages::sidecarVerifier),
                config.verifier().cpu(), config.verifier().memory(),
                config.verifier().port(),
                config.gpu().nodeSelector().isEmpty() ? OperatorSettings.defaults().gpuNodeSelector() : config.gpu().nodeSelector(), OperatorSettings.tolerations(config.gpu().tolerations()),
                config.gpu().nodeLabel(), config.runAsUser(), config.gangSchedulerName(), config.rendezvousPort(),
                config.verifier().cpuLimit().orElse(null), config.verifier().memoryLimit().orElse(config.verifier().memory()),
                config.failWhenNoNodeFits(), config.userNamespaces()).withTraceStore(config.traceStoreUrl().orElse(null))
                .withLogTailBytes(config.logTailBytes())
                .withTraceStorePeer(config.traceStorePodSelector().map(selector -> TraceStorePeer.parse(
                        config.traceStoreNamespace().orElse(null), selector, config.traceStorePodPort())).orElse(null));
    }

    /** Compiling the CRD schemas and CEL rules takes a moment; do it once. */
    @Produces
    @Singleton
    ManifestValidator validator() {
        return new ManifestValidator();
    }

    @Produces
    @Singleton
    EnvironmentValidation environmentValidation(ManifestValidator validator) {
        return new EnvironmentValidation(validator);
    }

    @Produces
    @Singleton
    AdmissionReviewer admissionReviewer(ManifestValidator validator) {
        return new AdmissionReviewer(validator);
    }

    /** The snapshot agent DaemonSet of this release: snapshots (RolloutSnapshot) and restores (Rollout). */
    @Produces
    @Singleton
    SnapshotAgents snapshotAgents(KubernetesClient client, CrucibleConfig config) {
        CrucibleConfig.Snapshots c = config.snapshots();
        String ns = OperatorNamespace.resolve(c.agentNamespace(), client);
        java.util.function.Supplier<dev.crucible.snapshot.client.tls.AgentClientTls> tls = null;
        if (c.tlsEnabled()) {
            var certs = new dev.crucible.operator.webhook.SnapshotAgentCertificates(client, ns, c.tlsCaSecret(), c.tlsAgentSecret(),
                    java.nio.file.Path.of(c.tlsDirectory()), java.time.Duration.ofDays(c.tlsValidityDays()),
                    java.time.Duration.ofDays(Math.max(1, c.tlsValidityDays() / 3)), java.time.Clock.systemUTC());
            tls = new AgentTlsRefresh(certs, java.time.Duration.ofHours(6));
            // Issue at start, not at the first snapshot: the agents cannot start (and crash-loop into
            // minutes of back-off) while their Secret is empty. Found on a real kubelet; kwok hid it.
            var issue = tls;
            Thread t = new Thread(() -> {
                try {
                    issue.get();
                } catch (RuntimeException e) {
                    org.jboss.logging.Logger.getLogger(OperatorBeans.class)
                            .warnf("snapshot agent certificates not issued yet (retried at the first snapshot): %s", e.getMessage());
                }
            }, "crucible-agent-certificates");
            t.setDaemon(true);
            t.start();
        }
        return new DaemonSetAgents(client, new SnapshotAgentSettings(ns, c.agentSelector(), c.agentPort(),
                java.nio.file.Path.of(c.tokenFile()), tls), java.time.Duration.ofSeconds(c.callTimeoutSeconds()));
    }

    @Produces
    @Singleton
    ControllerMetrics metrics(MeterRegistry registry) {
        return new ControllerMetrics(registry);
    }

    /**
     * Replaces the SDK's Micrometer binding (a {@code @DefaultBean}), whose meters carry each
     * resource's name and namespace: bounded meters only (queue depth, failures per controller).
     */
    @Produces
    @Singleton
    io.javaoperatorsdk.operator.api.monitoring.Metrics sdkMetrics(MeterRegistry registry, ControllerMetrics metrics) {
        return new dev.crucible.controllers.metrics.QueueDepthMetrics(registry, metrics.firstSight());
    }

    /** Creates the snapshot agent client (and so issues the agents' certificates) at start-up. */
    void startSnapshotAgents(@Observes StartupEvent event, SnapshotAgents agents) {
        agents.toString();
    }

    /** Registers the gauges at start-up, so /q/metrics shows them before the first reconcile. */
    void registerMetrics(@Observes StartupEvent event, ControllerMetrics metrics) {
        metrics.rolloutsIn(PhaseName.Pending);
    }

    /** Only one replica reconciles; the others wait on the Lease (active in the prod profile). */
    @Produces
    @Singleton
    LeaderElectionConfiguration leaderElection(CrucibleConfig config) {
        String identity = holder(config.leaderElection().identity().orElse(null), System.getenv("POD_NAME"));
        return identity == null
                ? new LeaderElectionConfiguration(config.leaderElection().leaseName(), config.leaderElection().leaseNamespace().orElse(null))
                : new LeaderElectionConfiguration(config.leaderElection().leaseName(),
                        config.leaderElection().leaseNamespace().orElse(null), identity);
    }

    /** The Lease holder a person can find with kubectl: the configured one, else the pod's name (null: the SDK's random id). */
    static String holder(String configured, String podName) {
        if (configured != null && !configured.isBlank()) {
            return configured;
        }
        return podName == null || podName.isBlank() ? null : podName;
    }
}
