package dev.crucible.controllers.probe;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.crucible.api.v1alpha1.ProbeModel;
import dev.crucible.api.v1alpha1.probe.HeadSpec;
import dev.crucible.api.v1alpha1.probe.ProbeModelSpec;
import dev.crucible.api.v1alpha1.probe.RewardSpec;
import dev.crucible.controllers.common.OwnerReferences;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * The ConfigMap with {@code probe.json}, mounted at {@link #MOUNT_PATH} beside the model volume at
 * {@link #MODEL_PATH}. It uses the ProbeModel's own field names, which the probe server accepts
 * (probe-server/README.md), with every file path made absolute under the model volume.
 * <p>
 * The server pools tokens once per turn (a plain text is one turn) and then aggregates over turns,
 * so for a trajectory probe the per-turn pooling is {@code trajectory.turnPooling} and
 * {@code trajectory.aggregation} becomes {@code turnAggregation}; without a trajectory it is
 * {@code spec.pooling}. A head's own pooling still overrides either, as it does in the server.
 */
public final class ProbeConfigMapBuilder {
    public static final String KEY = "probe.json";
    public static final String MOUNT_PATH = "/etc/crucible/probe";
    public static final String MODEL_PATH = "/models";

    // The API server fills these from the CRD defaults; they matter only for objects built by hand.
    static final String DEFAULT_POOLING = "mean_last_half";
    static final String DEFAULT_TURN_POOLING = "mean_full";
    static final String DEFAULT_AGGREGATION = "mean";

    private static final ObjectMapper JSON = new ObjectMapper();

    private ProbeConfigMapBuilder() {
    }

    public static ConfigMap build(ProbeModel probe) {
        String name = probe.getMetadata().getName();
        return new ConfigMapBuilder()
                .withNewMetadata()
                .withName(ProbeNames.configMapName(name))
                .withNamespace(probe.getMetadata().getNamespace())
                .withLabels(ProbeNames.labels(name))
                .withOwnerReferences(OwnerReferences.controlledBy(probe))
                .endMetadata()
                .withData(Map.of(KEY, probeJson(probe)))
                .build();
    }

    /** probe.json, pretty-printed so {@code kubectl get cm -o yaml} stays readable. */
    public static String probeJson(ProbeModel probe) {
        ProbeModelSpec spec = probe.getSpec();
        ObjectNode n = JSON.createObjectNode();
        n.put("name", probe.getMetadata().getName());
        ObjectNode ref = n.putObject("reference");
        ref.put("path", onModelVolume(spec.referenceModel.path));
        ref.put("tokenizerPath", onModelVolume(spec.referenceModel.tokenizerPath));
        if (spec.referenceModel.maxTokens != null) {
            ref.put("maxTokens", spec.referenceModel.maxTokens);
        }
        n.put("layer", spec.layer);
        if (spec.trajectory != null) {
            n.put("pooling", spec.trajectory.turnPooling == null ? DEFAULT_TURN_POOLING : wire(spec.trajectory.turnPooling));
            n.put("turnAggregation", spec.trajectory.aggregation == null ? DEFAULT_AGGREGATION : wire(spec.trajectory.aggregation));
        } else {
            n.put("pooling", spec.pooling == null ? DEFAULT_POOLING : wire(spec.pooling));
            // One turn per text: any aggregation is the identity; mean is the server's documented choice.
            n.put("turnAggregation", DEFAULT_AGGREGATION);
        }
        var heads = n.putArray("heads");
        for (HeadSpec h : spec.heads) {
            ObjectNode head = heads.addObject();
            head.put("name", h.name);
            if (h.architecture != null) {
                head.put("architecture", wire(h.architecture)); // informative: the weights file carries it
            }
            head.put("weightsPath", onModelVolume(h.weightsPath));
            if (h.layer != null) {
                head.put("layer", h.layer);
            }
            if (h.pooling != null) {
                head.put("pooling", wire(h.pooling));
            }
        }
        RewardSpec reward = spec.reward;
        ObjectNode r = n.putObject("reward");
        r.put("composition", reward == null || reward.composition == null ? "hard-gate" : wire(reward.composition));
        if (reward != null) {
            putIfSet(r, "invalidFloor", reward.invalidFloor);
            putIfSet(r, "clipMin", reward.clipMin);
            putIfSet(r, "clipMax", reward.clipMax);
        }
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(n) + "\n";
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Paths in the spec are relative to the model volume (the CRD forbids a leading slash). */
    static String onModelVolume(String relative) {
        String p = relative;
        while (p.startsWith("./")) {
            p = p.substring(2);
        }
        return MODEL_PATH + "/" + p;
    }

    /** The enum's JSON name (its {@code @JsonProperty}), which is also what the server parses. */
    static String wire(Enum<?> value) {
        return JSON.convertValue(value, String.class);
    }

    private static void putIfSet(ObjectNode node, String field, Double value) {
        if (value != null) {
            node.put(field, value);
        }
    }
}
