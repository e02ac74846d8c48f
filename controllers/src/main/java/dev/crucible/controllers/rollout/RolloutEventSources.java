package dev.crucible.controllers.rollout;

import dev.crucible.controllers.common.RolloutLabels;
import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.api.v1alpha1.RolloutSnapshot;
import dev.crucible.api.v1alpha1.common.ConditionTypes;
import dev.crucible.controllers.status.Conditions;
import io.fabric8.kubernetes.api.model.Pod;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What a Rollout watches: its pods (by the managed-by label, lean cache), its environment (only spec
 * and validity changes wake it; statistics do not) and its snapshots (by {@code spec.rolloutRef}).
 */
final class RolloutEventSources {
    static final String BY_ENVIRONMENT = "rollouts-by-environment";

    final InformerEventSource<Pod, Rollout> pods;
    final InformerEventSource<RLEnvironment, Rollout> environments;
    final InformerEventSource<RolloutSnapshot, Rollout> snapshots;

    RolloutEventSources(EventSourceContext<Rollout> context) {
        context.getPrimaryCache().addIndexer(BY_ENVIRONMENT, r -> List.of(environmentKey(r.getMetadata().getNamespace(),
                r.getSpec() == null || r.getSpec().environmentRef == null ? "" : r.getSpec().environmentRef.name)));
        pods = new InformerEventSource<>(InformerEventSourceConfiguration.from(Pod.class, Rollout.class)
                .withName("rollout-pods")
                .withLabelSelector(RolloutLabels.MANAGED_BY + "=" + RolloutLabels.MANAGED_BY_VALUE)
                .withItemStore(new LeanPodStore())
                .build(), context);
        environments = new InformerEventSource<>(
                InformerEventSourceConfiguration.from(RLEnvironment.class, Rollout.class)
                        .withName("rollout-environments")
                        .withPrimaryToSecondaryMapper((Rollout r) -> r.getSpec() == null || r.getSpec().environmentRef == null
                                ? Set.of() : Set.of(new ResourceID(r.getSpec().environmentRef.name, r.getMetadata().getNamespace())))
                        .withSecondaryToPrimaryMapper(env -> context.getPrimaryCache()
                                .byIndex(BY_ENVIRONMENT, environmentKey(env.getMetadata().getNamespace(), env.getMetadata().getName()))
                                .stream().map(ResourceID::fromResource).collect(Collectors.toSet()))
                        // Statistics change an environment's status all the time; only spec and validity matter here.
                        .withOnUpdateFilter((updated, old) -> !Objects.equals(updated.getMetadata().getGeneration(),
                                old.getMetadata().getGeneration()) || !Objects.equals(validity(updated), validity(old)))
                        .build(), context);
        // Every snapshot of a rollout (periodic, on-hack, or a person's), keyed by spec.rolloutRef.
        snapshots = new InformerEventSource<>(InformerEventSourceConfiguration.from(RolloutSnapshot.class, Rollout.class)
                .withName("rollout-snapshots")
                .withSecondaryToPrimaryMapper(snap -> snap.getSpec() == null || snap.getSpec().rolloutRef == null ? Set.of()
                        : Set.of(new ResourceID(snap.getSpec().rolloutRef.name, snap.getMetadata().getNamespace())))
                .withPrimaryToSecondaryMapper((Rollout r) -> Set.of())
                .build(), context);
    }

    /** The environment's Valid condition: true, false, or null while not yet reconciled. */
    static Boolean validity(RLEnvironment env) {
        if (env.getStatus() == null) {
            return null;
        }
        var c = Conditions.find(env.getStatus().conditions, ConditionTypes.VALID);
        return c == null ? null : "True".equals(c.getStatus());
    }

    static String environmentKey(String namespace, String name) {
        return namespace + "/" + name;
    }
}
