package dev.crucible.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The generated CRDs on a real kube-apiserver: every example is accepted; every invalid example whose
 * error the schema or a CEL rule can see is refused by the API server too, which proves the CEL rules
 * compile there and stay within the cost budget.
 */
class ExamplesOnApiServerTest {

    /** Invalid examples only the shared validator (webhook) catches: semantics, YAML-level errors. */
    static final List<String> NOT_FOR_THE_API_SERVER = List.of(
            "07-env-fail-to-pass-overlap.yaml",   // semantic: a test in both lists
            "15-rollout-unknown-environment.yaml", // reference between documents
            "25-duplicate-key.yaml",              // YAML parsing (kubectl refuses it before sending)
            "26-wrong-api-version.yaml",          // no such API: a 404, not a validation error
            "27-protected-path-escapes.yaml");    // semantic: glob leaves the workspace

    static Path examples() {
        Path root = Path.of(System.getProperty("crucible.repo.root", "..")).toAbsolutePath().normalize();
        return root.resolve("examples");
    }

    private static List<Path> yamlFiles(Path dir, boolean recurseIntoInvalid) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(p -> p.toString().endsWith(".yaml") || p.toString().endsWith(".yml"))
                    .filter(p -> recurseIntoInvalid || !p.toString().contains("/invalid/"))
                    .filter(p -> !p.toString().contains("/workspace/"))
                    .sorted().toList();
        }
    }

    @TestFactory
    List<DynamicTest> everyValidExampleIsAccepted() throws IOException {
        KubernetesClient client = SharedCluster.client();
        String ns = SharedCluster.namespace("examples");
        List<DynamicTest> tests = new ArrayList<>();
        for (Path file : yamlFiles(examples(), false)) {
            tests.add(DynamicTest.dynamicTest(examples().relativize(file).toString(), () -> {
                for (HasMetadata item : load(client, file)) {
                    if (!(item instanceof GenericKubernetesResource) || !item.getApiVersion().startsWith("crucible.dev/")) {
                        continue;
                    }
                    item.getMetadata().setNamespace(ns);
                    HasMetadata created = client.resource(item).create();
                    assertThat(created.getMetadata().getUid()).isNotBlank();
                }
            }));
        }
        assertThat(tests).hasSizeGreaterThanOrEqualTo(4);
        return tests;
    }

    @TestFactory
    List<DynamicTest> invalidExamplesAreRefusedByTheApiServer() throws IOException {
        KubernetesClient client = SharedCluster.client();
        String ns = SharedCluster.namespace("invalid");
        List<DynamicTest> tests = new ArrayList<>();
        for (Path file : yamlFiles(examples().resolve("invalid"), true)) {
            if (NOT_FOR_THE_API_SERVER.contains(file.getFileName().toString())) {
                continue;
            }
            String expect = Files.readAllLines(file).get(0).replace("# expect:", "").trim();
            tests.add(DynamicTest.dynamicTest(file.getFileName().toString(), () -> {
                List<HasMetadata> items = load(client, file);
                assertThat(items).isNotEmpty();
                HasMetadata item = items.get(0);
                item.getMetadata().setNamespace(ns);
                assertThatThrownBy(() -> client.resource(item).fieldValidation(io.fabric8.kubernetes.client.dsl.FieldValidateable.Validation.STRICT).create())
                        .isInstanceOf(KubernetesClientException.class)
                        .satisfies(e -> {
                            KubernetesClientException k = (KubernetesClientException) e;
                            assertThat(k.getCode()).as(k.getMessage()).isIn(400, 422);
                            // The API server names the field; its root is the expected path's first segments.
                            String top = expect.contains(".") ? expect.substring(0, expect.indexOf('.', 5) < 0
                                    ? expect.length() : expect.indexOf('.', 5)) : expect;
                            assertThat(k.getMessage()).contains(top);
                        });
            }));
        }
        assertThat(tests).hasSizeGreaterThanOrEqualTo(15);
        return tests;
    }

    private static List<HasMetadata> load(KubernetesClient client, Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            Object parsed = client.getKubernetesSerialization().unmarshal(in);
            if (parsed instanceof List<?> list) {
                return list.stream().map(HasMetadata.class::cast).toList();
            }
            if (parsed instanceof io.fabric8.kubernetes.api.model.KubernetesResourceList<?> list) {
                return new ArrayList<>(list.getItems());
            }
            return List.of((HasMetadata) parsed);
        } catch (IOException e) {
            return fail(e);
        }
    }
}
