package dev.crucible.e2e.cluster;

import dev.crucible.api.validation.ManifestValidator;
import dev.crucible.controllers.config.OperatorSettings;
import dev.crucible.controllers.environment.EnvironmentValidation;
import dev.crucible.controllers.environment.RLEnvironmentReconciler;
import dev.crucible.controllers.metrics.ControllerMetrics;
import dev.crucible.controllers.metrics.QueueDepthMetrics;
import dev.crucible.controllers.rollout.RolloutReconciler;
import dev.crucible.controllers.snapshot.RolloutSnapshotReconciler;
import dev.crucible.controllers.snapshot.SnapshotAgents;
import dev.crucible.controllers.source.SourceDerivation;
import dev.crucible.controllers.probe.ProbeModelReconciler;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.config.ConfigurationServiceOverrider;
import java.util.function.Consumer;
import io.javaoperatorsdk.operator.Operator;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/** The Crucible reconcilers in a plain JOSDK {@link Operator} (no Quarkus), against any API server. */
public final class InProcessOperator implements AutoCloseable {

    private static volatile ManifestValidator validator;

    private final Operator operator;
    private final ControllerMetrics metrics;
    private final QueueDepthMetrics queue;
    private final KubernetesClient client;
    private final PrometheusMeterRegistry registry;

    public InProcessOperator(KubernetesClient client, OperatorSettings settings) {
        this(client, settings, null);
    }

    /** With {@code agents}, RolloutSnapshots are reconciled through them (null: no snapshot controller). */
    public InProcessOperator(KubernetesClient client, OperatorSettings settings, SnapshotAgents agents) {
        this(client, settings, agents, o -> { }, null);
    }

    /**
     * As deployed: {@code overrides} adds to the SDK's configuration (e.g. leader election), and with a
     * {@code probeServerImage} ProbeModels are reconciled too (null: no ProbeModel controller).
     */
    public InProcessOperator(KubernetesClient client, OperatorSettings settings, SnapshotAgents agents,
                             Consumer<ConfigurationServiceOverrider> overrides, String probeServerImage) {
        this(client, settings, agents, overrides, probeServerImage, java.util.Set.of());
    }

    /** Watching only {@code namespaces} (the chart's {@code watchNamespaces}); empty: every namespace. */
    public InProcessOperator(KubernetesClient client, OperatorSettings settings, SnapshotAgents agents,
                             Consumer<ConfigurationServiceOverrider> overrides, String probeServerImage,
                             java.util.Set<String> namespaces) {
        this.client = client;
        this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        this.metrics = new ControllerMetrics(registry);
        this.queue = new QueueDepthMetrics(registry, metrics.firstSight());
        this.operator = new Operator(o -> {
            o.withKubernetesClient(client)
                    .withMetrics(queue)
                    .withCloseClientOnStop(false)
                    .withConcurrentReconciliationThreads(50)
                    .withStopOnInformerErrorDuringStartup(true);
            overrides.accept(o);
        });
        register(new RolloutReconciler(settings, metrics, agents), namespaces);
        register(new RLEnvironmentReconciler(new EnvironmentValidation(validator()), metrics,
                new SourceDerivation(java.nio.file.Path.of(System.getProperty("java.io.tmpdir"), "crucible-sources")), settings), namespaces);
        if (agents != null) {
            register(new RolloutSnapshotReconciler(agents, metrics), namespaces);
        }
        if (probeServerImage != null) {
            register(new ProbeModelReconciler(settings, metrics, probeServerImage), namespaces);
        }
    }

    private <R extends io.fabric8.kubernetes.api.model.HasMetadata> void register(
            io.javaoperatorsdk.operator.api.reconciler.Reconciler<R> reconciler, java.util.Set<String> namespaces) {
        if (namespaces.isEmpty()) {
            operator.register(reconciler);
        } else {
            operator.register(reconciler, o -> o.settingNamespaces(namespaces));
        }
    }

    /** Building the validator compiles every CEL rule once; share it across operator restarts. */
    public static ManifestValidator validator() {
        ManifestValidator v = validator;
        if (v == null) {
            synchronized (InProcessOperator.class) {
                if (validator == null) {
                    validator = new ManifestValidator();
                }
                v = validator;
            }
        }
        return v;
    }

    public InProcessOperator start() {
        operator.start();
        return this;
    }

    public ControllerMetrics metrics() {
        return metrics;
    }

    /** What /q/metrics would serve: the Prometheus text exposition of every meter. */
    public String scrape() {
        return registry.scrape();
    }

    public QueueDepthMetrics queue() {
        return queue;
    }

    public KubernetesClient client() {
        return client;
    }

    @Override
    public void close() {
        operator.stop();
    }
}
