package dev.crucible.controllers.rollout;

import dev.crucible.controllers.common.OwnerReferences;
import dev.crucible.controllers.common.RolloutLabels;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.contract.GradingContainer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The ConfigMap the verifier sidecar reads: the RLEnvironment manifest ({@code environment.yaml}),
 * the Rollout's spec ({@code rollout.yaml}), and the task prompt ({@code task.md}, the only key the
 * agent container sees: hidden tests and FAIL_TO_PASS lists stay with the verifier), and the grading
 * runner ({@link GradingContainer#CONFIG_KEY}, the only key the grading container sees).
 */
public final class EnvironmentConfigMapBuilder {
    public static final String ENVIRONMENT_KEY = "environment.yaml";
    public static final String ROLLOUT_KEY = "rollout.yaml";
    public static final String TASK_KEY = "task.md";

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory()
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES));

    private EnvironmentConfigMapBuilder() {
    }

    public static ConfigMap build(Rollout rollout, RLEnvironment environment) {
        Map<String, String> data = new LinkedHashMap<>();
        data.put(ENVIRONMENT_KEY, manifest(environment));
        data.put(ROLLOUT_KEY, manifest(rollout));
        data.put(TASK_KEY, environment.getSpec().task == null || environment.getSpec().task.prompt == null
                ? "" : environment.getSpec().task.prompt);
        data.put(GradingContainer.CONFIG_KEY, GradingContainer.script());
        return new ConfigMapBuilder()
                .withNewMetadata()
                .withName(RolloutLabels.configMapName(rollout.getMetadata().getName()))
                .withNamespace(rollout.getMetadata().getNamespace())
                .withLabels(RolloutLabels.forRollout(rollout.getMetadata().getName()))
                .withOwnerReferences(OwnerReferences.controlledBy(rollout))
                .endMetadata()
                .withImmutable(true)
                .withData(data)
                .build();
    }

    /** apiVersion, kind, name, namespace, generation and spec: what a user wrote, without status or managedFields. */
    static String manifest(io.fabric8.kubernetes.client.CustomResource<?, ?> resource) {
        ObjectNode node = YAML.createObjectNode();
        node.put("apiVersion", resource.getApiVersion());
        node.put("kind", resource.getKind());
        ObjectNode meta = node.putObject("metadata");
        meta.put("name", resource.getMetadata().getName());
        if (resource.getMetadata().getNamespace() != null) {
            meta.put("namespace", resource.getMetadata().getNamespace());
        }
        if (resource.getMetadata().getGeneration() != null) {
            meta.put("generation", resource.getMetadata().getGeneration());
        }
        node.set("spec", YAML.valueToTree(resource.getSpec()));
        try {
            return YAML.writeValueAsString(node);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
