package dev.crucible.controllers.rollout;

import dev.crucible.controllers.common.OwnerReferences;
import dev.crucible.controllers.common.RolloutLabels;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.controllers.config.OperatorSettings;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Map;

/**
 * Gang schedulers that understand "all of these pods or none": Volcano, the scheduler-plugins
 * coscheduling plugin, and Kueue's pod groups. Where one is installed its PodGroup (or labels) is
 * added; the operator's own scheduling gate and gang timeout stay on in every case.
 */
public final class GangSchedulerSupport {

    public enum Kind {
        VOLCANO("podgroups.scheduling.volcano.sh", "scheduling.volcano.sh/v1beta1"),
        COSCHEDULING("podgroups.scheduling.x-k8s.io", "scheduling.x-k8s.io/v1alpha1"),
        KUEUE("workloads.kueue.x-k8s.io", null);

        final String crd;
        final String podGroupApiVersion;

        Kind(String crd, String podGroupApiVersion) {
            this.crd = crd;
            this.podGroupApiVersion = podGroupApiVersion;
        }
    }

    private GangSchedulerSupport() {
    }

    /** The first gang scheduler whose CRD the cluster serves, or null. */
    public static Kind detect(KubernetesClient client) {
        for (Kind kind : Kind.values()) {
            try {
                if (client.apiextensions().v1().customResourceDefinitions().withName(kind.crd).get() != null) {
                    return kind;
                }
            } catch (KubernetesClientException e) {
                // No permission to read CRDs: behave as if none were installed (the gate still works).
                return null;
            }
        }
        return null;
    }

    /** Labels and annotations that put a pod into the rollout's gang for the given scheduler. */
    static void label(Kind kind, String rollout, int members, Map<String, String> labels, Map<String, String> annotations) {
        switch (kind) {
            case VOLCANO -> annotations.put("scheduling.k8s.io/group-name", rollout);
            case COSCHEDULING -> labels.put("scheduling.x-k8s.io/pod-group", RolloutLabels.truncate(rollout));
            case KUEUE -> {
                labels.put("kueue.x-k8s.io/pod-group-name", RolloutLabels.truncate(rollout));
                annotations.put("kueue.x-k8s.io/pod-group-total-count", Integer.toString(members));
            }
        }
    }

    static String schedulerName(Kind kind, OperatorSettings settings) {
        return switch (kind) {
            case VOLCANO -> "volcano";
            case COSCHEDULING -> settings.gangSchedulerName();
            case KUEUE -> null;
        };
    }

    /** The PodGroup object, or null for Kueue (which groups pods by label alone). */
    public static GenericKubernetesResource podGroup(Kind kind, Rollout rollout, int members, int timeoutSeconds) {
        if (kind.podGroupApiVersion == null) {
            return null;
        }
        Map<String, Object> spec = kind == Kind.COSCHEDULING
                ? Map.of("minMember", members, "scheduleTimeoutSeconds", timeoutSeconds)
                : Map.of("minMember", members);
        return new GenericKubernetesResourceBuilder()
                .withApiVersion(kind.podGroupApiVersion)
                .withKind("PodGroup")
                .withNewMetadata()
                .withName(rollout.getMetadata().getName())
                .withNamespace(rollout.getMetadata().getNamespace())
                .withLabels(RolloutLabels.forRollout(rollout.getMetadata().getName()))
                .withOwnerReferences(OwnerReferences.controlledBy(rollout))
                .endMetadata()
                .withAdditionalProperties(Map.of("spec", spec))
                .build();
    }
}
