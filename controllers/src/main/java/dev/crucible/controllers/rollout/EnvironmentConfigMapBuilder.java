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
 * The ConfigMap the verifier sidecar reads, one per version of an environment and shared by all its
 * Rollouts (so a Rollout costs no write of its own): the RLEnvironment manifest ({@code environment.yaml}),
 * the task prompt ({@code task.md}, the only key the agent container sees: hidden tests and FAIL_TO_PASS
 * lists stay with the verifier), and the grading runner ({@link GradingContainer#CONFIG_KEY}, the only key
 * the grading container sees; the oracle-worker container sees it and the oracle spawner's key). Its name ends in a hash of its data, so a name that exists holds exactly
 * this data (it is immutable) and an edited environment gets a new one while running pods keep theirs.
 * The Rollout's own spec ({@code rollout.yaml}) reaches the sidecar beside these keys from the pod's
 * annotation ({@link #ROLLOUT_ANNOTATION}, a downward-API file in the same projected volume).
 */
public final class EnvironmentConfigMapBuilder {
    public static final String ENVIRONMENT_KEY = "environment.yaml";
    public static final String ROLLOUT_KEY = "rollout.yaml";
    public static final String TASK_KEY = "task.md";
    /** The pod annotation holding {@code rollout.yaml} (the Rollout's spec as the sidecar reads it). */
    public static final String ROLLOUT_ANNOTATION = "crucible.dev/rollout-yaml";

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory()
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES));

    private EnvironmentConfigMapBuilder() {
    }

    public static ConfigMap build(RLEnvironment environment) {
        Map<String, String> data = new LinkedHashMap<>();
        data.put(ENVIRONMENT_KEY, manifest(environment));
        data.put(TASK_KEY, environment.getSpec().task == null || environment.getSpec().task.prompt == null
                ? "" : environment.getSpec().task.prompt);
        data.put(GradingContainer.CONFIG_KEY, GradingContainer.script());
        data.put(dev.crucible.contract.OracleContainer.CONFIG_KEY, dev.crucible.contract.OracleContainer.script());
        String env = environment.getMetadata().getName();
        return new ConfigMapBuilder()
                .withNewMetadata()
                .withName(name(env, data))
                .withNamespace(environment.getMetadata().getNamespace())
                .withLabels(Map.of(RolloutLabels.MANAGED_BY, RolloutLabels.MANAGED_BY_VALUE,
                        RolloutLabels.ENVIRONMENT, RolloutLabels.truncate(env)))
                // Goes with its environment; a running pod keeps the files it mounted.
                .withOwnerReferences(OwnerReferences.ownedBy(environment))
                .endMetadata()
                .withImmutable(true)
                .withData(data)
                .build();
    }

    /** {@code crucible-env-<environment>-<hash of the data>}, within the 253 characters of a name. */
    static String name(String environment, Map<String, String> data) {
        String prefix = "crucible-env-" + environment;
        return (prefix.length() > 230 ? prefix.substring(0, 230) : prefix) + "-" + SideObjectNames.hash(data.toString());
    }

    /**
     * The Rollout as its sidecar reads it ({@code rollout.yaml}, the pod's {@link #ROLLOUT_ANNOTATION}), without
     * {@code spec.patches}: the snapshot agent applies those (up to 64 of 1 MiB each, against an annotation
     * limit of 256 KiB), and the sidecar never reads them.
     */
    static String rolloutManifest(Rollout rollout) {
        ObjectNode node = tree(rollout);
        ((ObjectNode) node.get("spec")).remove("patches");
        return write(node);
    }

    /** apiVersion, kind, name, namespace, generation and spec: what a user wrote, without status or managedFields. */
    static String manifest(io.fabric8.kubernetes.client.CustomResource<?, ?> resource) {
        return write(tree(resource));
    }

    private static ObjectNode tree(io.fabric8.kubernetes.client.CustomResource<?, ?> resource) {
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
        return node;
    }

    private static String write(ObjectNode node) {
        try {
            return YAML.writeValueAsString(node);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
