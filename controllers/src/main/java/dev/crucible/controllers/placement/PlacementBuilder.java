package dev.crucible.controllers.placement;

import dev.crucible.api.v1alpha1.rollout.PlacementSpec;
import dev.crucible.controllers.config.OperatorSettings;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where a rollout pod may run. GPU pods get the operator's GPU node selector and tolerations (GPU nodes
 * are tainted) plus the GPU model label; CPU pods require the GPU node label to be absent, so they
 * never take a GPU node's CPUs from GPU work. The Rollout's own placement is merged on top.
 */
public final class PlacementBuilder {

    /** Node label the NVIDIA GPU feature discovery sets to the GPU product name. */
    public static final String GPU_PRODUCT_LABEL = "nvidia.com/gpu.product";

    /** What the pod spec gets. */
    public record Placement(Map<String, String> nodeSelector, List<Toleration> tolerations, Affinity affinity) {
    }

    private PlacementBuilder() {
    }

    public static Placement place(int gpus, String gpuModel, PlacementSpec spec, OperatorSettings settings) {
        Map<String, String> selector = new LinkedHashMap<>();
        List<Toleration> tolerations = new ArrayList<>();
        Affinity affinity = null;
        if (gpus > 0) {
            selector.putAll(settings.gpuNodeSelector());
            if (gpuModel != null && !gpuModel.isBlank()) {
                selector.put(GPU_PRODUCT_LABEL, gpuModel);
            }
            tolerations.addAll(settings.gpuTolerations());
        } else {
            affinity = new AffinityBuilder().withNewNodeAffinity()
                    .withNewRequiredDuringSchedulingIgnoredDuringExecution()
                    .addNewNodeSelectorTerm().addNewMatchExpression()
                    .withKey(settings.gpuNodeLabel()).withOperator("DoesNotExist")
                    .endMatchExpression().endNodeSelectorTerm()
                    .endRequiredDuringSchedulingIgnoredDuringExecution()
                    .endNodeAffinity().build();
        }
        if (spec != null) {
            if (spec.nodeSelector != null) {
                selector.putAll(spec.nodeSelector);
            }
            if (spec.tolerations != null) {
                for (Toleration t : spec.tolerations) {
                    if (!tolerations.contains(t)) {
                        tolerations.add(t);
                    }
                }
            }
        }
        return new Placement(selector, tolerations, affinity);
    }
}
