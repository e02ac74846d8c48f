package dev.crucible.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.crucible.api.v1alpha1.RLEnvironment;
import dev.crucible.api.v1alpha1.environment.RLEnvironmentSpec;
import dev.crucible.contract.SpecDefaults;
import dev.crucible.controllers.rollout.EnvironmentConfigMapBuilder;
import dev.crucible.verifier.config.EnvironmentSpec;
import dev.crucible.verifier.config.ManifestReader;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

/**
 * The environment spec is read twice: typed by the operator (the CRD's API types) and as records by the
 * sidecar, which gets it through the environment's ConfigMap. For every valid RLEnvironment the repository
 * holds, the operator's typed object, written into that ConfigMap and read back by the sidecar, must mean
 * the same: each field the sidecar reads, with the defaults of contract/SpecDefaults where one is left out.
 */
class SpecReadersAgreeTest {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final KubernetesSerialization K8S = new KubernetesSerialization();

    static List<Path> manifests() throws IOException {
        Path root = Path.of("..").toAbsolutePath().normalize();
        List<Path> out = new ArrayList<>();
        for (Path dir : List.of(root.resolve("examples"), root.resolve("crds/src/test/resources/parity/valid"))) {
            try (Stream<Path> files = Files.walk(dir)) {
                files.filter(p -> p.toString().endsWith(".yaml") && !p.toString().contains("/invalid/")).sorted().forEach(out::add);
            }
        }
        return out;
    }

    private static String wire(Object enumValue) {
        return enumValue == null ? null : YAML.convertValue(enumValue, String.class);
    }

    @Test
    void theSidecarReadsWhatTheOperatorMeant() throws Exception {
        SoftAssertions soft = new SoftAssertions();
        int environments = 0;
        List<String> unreadable = new ArrayList<>();
        for (Path file : manifests()) {
            // SnakeYAML resolves what kubectl's parser does (merge keys, anchors) before the typed conversion
            for (Object loaded : new org.yaml.snakeyaml.Yaml().loadAll(Files.readString(file))) {
                JsonNode doc = YAML.valueToTree(loaded);
                if (doc == null || !"RLEnvironment".equals(doc.path("kind").asText())) continue;
                RLEnvironment typed;
                try {
                    typed = K8S.convertValue(doc, RLEnvironment.class);
                } catch (IllegalArgumentException e) {
                    unreadable.add(file.getFileName() + ": " + e.getMessage().lines().findFirst().orElse(""));
                    continue; // the typed API cannot hold it (e.g. 120.0 for an integer): nothing for the sidecar to agree with
                }
                if (typed.getMetadata() == null || typed.getMetadata().getName() == null) {
                    typed.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder().withName("unnamed").withNamespace("ns").build());
                }
                String written = EnvironmentConfigMapBuilder.build(typed).getData().get(EnvironmentConfigMapBuilder.ENVIRONMENT_KEY);
                EnvironmentSpec read = ManifestReader.parse(written, file + " (as the operator wrote it)");
                compare(soft, file.getFileName() + " " + typed.getMetadata().getName(), typed.getSpec(), read);
                environments++;
            }
        }
        assertThat(environments).as("RLEnvironments found").isGreaterThanOrEqualTo(15);
        assertThat(unreadable).as("manifests the typed API cannot read").hasSizeLessThanOrEqualTo(1);
        soft.assertAll();
    }

    private static void compare(SoftAssertions soft, String name, RLEnvironmentSpec t, EnvironmentSpec s) {
        soft.assertThat(s.task() == null ? null : s.task().prompt()).as(name + " task.prompt").isEqualTo(t.task == null ? null : t.task.prompt);
        soft.assertThat(s.workspace() == null ? null : s.workspace().path()).as(name + " workspace.path")
                .isEqualTo(t.workspace == null ? null : t.workspace.path);
        soft.assertThat(s.workspace() == null || s.workspace().mountPath() == null ? SpecDefaults.WORKSPACE_MOUNT_PATH : s.workspace().mountPath())
                .as(name + " workspace.mountPath").isEqualTo(t.workspace == null ? SpecDefaults.WORKSPACE_MOUNT_PATH : t.workspace.mountPath);
        if (t.setup != null) {
            soft.assertThat(s.setup().script()).as(name + " setup.script").isEqualTo(t.setup.script);
            soft.assertThat(s.setup().timeoutSeconds()).as(name + " setup.timeoutSeconds").isEqualTo(t.setup.timeoutSeconds);
            soft.assertThat(s.setup().env()).as(name + " setup.env").isEqualTo(t.setup.env == null ? java.util.Map.of() : t.setup.env);
        }
        List<String> tools = t.tools == null || t.tools.isEmpty() ? EnvironmentSpec.ALL_TOOLS
                : t.tools.stream().map(SpecReadersAgreeTest::wire).toList();
        soft.assertThat(s.tools()).as(name + " tools").isEqualTo(tools);
        String action = t.hackPolicy == null || t.hackPolicy.action == null ? SpecDefaults.HACK_POLICY_ACTION : wire(t.hackPolicy.action);
        soft.assertThat(s.hackPolicy().action()).as(name + " hackPolicy.action").isEqualTo(action);
        if (t.hackPolicy != null) {
            soft.assertThat(s.hackPolicy().ignore()).as(name + " hackPolicy.ignore").isEqualTo(t.hackPolicy.ignore == null ? List.of() : t.hackPolicy.ignore);
        }
        if (t.source != null) {
            soft.assertThat(s.source().repo()).as(name + " source.repo").isEqualTo(t.source.repo);
            soft.assertThat(s.source().commit()).as(name + " source.commit").isEqualTo(t.source.commit);
            soft.assertThat(s.source().historyOrDefault()).as(name + " source.history")
                    .isEqualTo(t.source.history == null ? SpecDefaults.SOURCE_HISTORY : t.source.history);
        }
        if (t.verifier != null) {
            var v = s.verifier();
            soft.assertThat(v.typeOrDefault()).as(name + " verifier.type")
                    .isEqualTo(t.verifier.type == null ? SpecDefaults.VERIFIER_TYPE : wire(t.verifier.type));
            soft.assertThat(v.rewardModeOrDefault()).as(name + " verifier.rewardMode")
                    .isEqualTo(t.verifier.rewardMode == null ? SpecDefaults.REWARD_MODE : wire(t.verifier.rewardMode));
            soft.assertThat(v.timeoutOrDefault()).as(name + " verifier.timeoutSeconds")
                    .isEqualTo(t.verifier.timeoutSeconds == null ? SpecDefaults.VERIFIER_TIMEOUT_SECONDS : t.verifier.timeoutSeconds);
            soft.assertThat(v.frameworkOrDefault()).as(name + " verifier.framework")
                    .isEqualTo(t.verifier.framework == null ? SpecDefaults.TEST_FRAMEWORK : wire(t.verifier.framework));
            soft.assertThat(v.interpreterOrDefault()).as(name + " verifier.interpreter")
                    .isEqualTo(t.verifier.interpreter == null ? SpecDefaults.INTERPRETER : t.verifier.interpreter);
            soft.assertThat(v.command()).as(name + " verifier.command").isEqualTo(t.verifier.command);
            soft.assertThat(v.failToPass()).as(name + " verifier.failToPass").isEqualTo(t.verifier.failToPass == null ? List.of() : t.verifier.failToPass);
            soft.assertThat(v.passToPass()).as(name + " verifier.passToPass").isEqualTo(t.verifier.passToPass == null ? List.of() : t.verifier.passToPass);
            soft.assertThat(v.protectedPaths()).as(name + " verifier.protectedPaths")
                    .isEqualTo(t.verifier.protectedPaths == null ? List.of() : t.verifier.protectedPaths);
            soft.assertThat(v.skippedCountsAsPassed()).as(name + " verifier.countSkippedAsPassed")
                    .isEqualTo(Boolean.TRUE.equals(t.verifier.countSkippedAsPassed));
            soft.assertThat(v.components().stream().map(c -> c.name()).toList()).as(name + " verifier.components")
                    .isEqualTo(t.verifier.components == null ? List.of() : t.verifier.components.stream().map(c -> c.name).toList());
        }
    }
}
