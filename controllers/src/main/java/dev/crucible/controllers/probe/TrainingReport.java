package dev.crucible.controllers.probe;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.api.v1alpha1.probe.SelectedProbe;
import dev.crucible.api.v1alpha1.probe.TrainingMetrics;
import io.fabric8.kubernetes.api.model.ConfigMap;

/**
 * The training metrics of a ProbeModel, read from the ConfigMap {@code <name>-training-report}, key
 * {@code report.json}: the file {@code crucible probe train} writes, whose {@code metrics} block has
 * the shape of {@code status.training}. A ConfigMap rather than an annotation because the report is
 * written by a Job (or a person with kubectl) that must not touch the ProbeModel: only its owner
 * writes status, and nobody but the user writes its metadata (GitOps drift). Labelling it
 * {@code crucible.dev/probe-model=<name>} makes the operator see it at once.
 *
 * @param present whether the ConfigMap exists
 * @param metrics the parsed metrics, null when absent or invalid
 * @param error   why an existing report could not be read, else null
 */
public record TrainingReport(boolean present, TrainingMetrics metrics, String error) {
    public static final String KEY = "report.json";
    private static final ObjectMapper JSON = new ObjectMapper();

    public static TrainingReport absent() {
        return new TrainingReport(false, null, null);
    }

    public static TrainingReport from(ConfigMap cm) {
        if (cm == null) {
            return absent();
        }
        String text = cm.getData() == null ? null : cm.getData().get(KEY);
        if (text == null || text.isBlank()) {
            return invalid("ConfigMap " + cm.getMetadata().getName() + " has no key " + KEY);
        }
        try {
            JsonNode root = JSON.readTree(text);
            // Accept the whole report.json or just its metrics block.
            JsonNode m = root != null && root.has("metrics") ? root.get("metrics") : root;
            if (m == null || !m.isObject()) {
                return invalid(KEY + " has no 'metrics' object");
            }
            TrainingMetrics t = new TrainingMetrics();
            t.balancedAccuracy = finite(m, "balancedAccuracy");
            t.auc = finite(m, "auc");
            t.f1 = finite(m, "f1");
            t.ece = finite(m, "ece");
            t.spearman = finite(m, "spearman");
            t.rewardVariance = finite(m, "rewardVariance");
            JsonNode s = m.path("selected");
            if (s.isObject()) {
                t.selected = new SelectedProbe();
                t.selected.layer = s.path("layer").canConvertToInt() && s.path("layer").isNumber() ? s.get("layer").asInt() : null;
                t.selected.pooling = s.path("pooling").isTextual() ? s.get("pooling").asText() : null;
                t.selected.architecture = s.path("architecture").isTextual() ? s.get("architecture").asText() : null;
            }
            t.trainedAt = m.path("trainedAt").isTextual() ? m.get("trainedAt").asText() : null;
            if (t.balancedAccuracy == null && t.auc == null && t.f1 == null) {
                return invalid(KEY + " metrics carry none of balancedAccuracy, auc, f1");
            }
            return new TrainingReport(true, t, null);
        } catch (JsonProcessingException e) {
            return invalid(KEY + " is not JSON: " + e.getOriginalMessage());
        }
    }

    private static TrainingReport invalid(String why) {
        return new TrainingReport(true, null, why);
    }

    /** NaN or infinite metrics (e.g. AUC of a single-class fold) are dropped: JSON and the API server refuse them. */
    private static Double finite(JsonNode m, String field) {
        JsonNode v = m.get(field);
        if (v == null || !v.isNumber()) {
            return null;
        }
        double d = v.asDouble();
        return Double.isFinite(d) ? d : null;
    }
}
