package dev.crucible.controllers.probe;

import dev.crucible.api.v1alpha1.ProbeModel;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.event.source.SecondaryToPrimaryMapper;
import java.util.Optional;
import java.util.function.Function;

/**
 * The ProbeModel's side objects as JOSDK dependent resources, used standalone (the reconciler creates them
 * and reconciles them in order: probe.json, the Service, the Deployment that mounts the one and sits behind
 * the other). Each is applied only when the object in the cluster no longer matches what the builder wants
 * (the SDK's server-side-apply matcher), and each watches only probe objects (label selector). Standalone
 * rather than through {@code @Workflow}: the Quarkus extension reads dependents from Quarkus' index, which
 * does not hold this jar, and the builders need the operator's settings.
 */
final class ProbeDependents {

    private ProbeDependents() {
    }

    /** One side object: its builder, its informer's name, and how its events find their ProbeModel. */
    static final class Dependent<R extends HasMetadata> extends CRUDKubernetesDependentResource<R, ProbeModel> {
        private final Function<ProbeModel, R> desired;
        private final SecondaryToPrimaryMapper<R> mapper;

        Dependent(Class<R> type, String informer, Function<ProbeModel, R> desired,
                  SecondaryToPrimaryMapper<R> mapper) {
            super(type, informer);
            this.desired = desired;
            this.mapper = mapper;
        }

        @Override
        protected R desired(ProbeModel primary, Context<ProbeModel> context) {
            return desired.apply(primary);
        }

        @Override
        protected InformerEventSourceConfiguration.Builder<R> informerConfigurationBuilder(EventSourceContext<ProbeModel> context) {
            // only probe objects, not every ConfigMap, Service and Deployment of the cluster
            return super.informerConfigurationBuilder(context).withLabelSelector(ProbeNames.PROBE_MODEL);
        }

        @Override
        protected Optional<SecondaryToPrimaryMapper<R>> getSecondaryToPrimaryMapper(EventSourceContext<ProbeModel> context) {
            return mapper == null ? super.getSecondaryToPrimaryMapper(context) : Optional.of(mapper);
        }

        @Override
        protected boolean addOwnerReference() {
            return false; // the builders set the controller reference (blockOwnerDeletion too)
        }
    }

    static Dependent<ConfigMap> configMap() {
        // a labelled training report (written by others) maps to its ProbeModel by name
        return new Dependent<>(ConfigMap.class, "probe-configmaps", ProbeConfigMapBuilder::build,
                ProbeModelReconciler.configMapToProbe());
    }

    static Dependent<Service> service() {
        return new Dependent<>(Service.class, "probe-services", ProbeServiceBuilder::build, null);
    }

    static Dependent<Deployment> deployment(ProbeDeploymentBuilder builder) {
        // the probe.json hash goes into the pod template, so a changed probe rolls the servers
        return new Dependent<>(Deployment.class, "probe-deployments",
                p -> builder.build(p, ProbeConfigMapBuilder.probeJson(p)), null);
    }
}
