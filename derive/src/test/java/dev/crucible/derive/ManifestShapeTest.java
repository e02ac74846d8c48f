package dev.crucible.derive;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contract with the RLEnvironment API types: every field a derived manifest can carry, over all
 * the fixture workflows. A new field here must be added to the CRD too, or derived manifests stop
 * passing {@code crucible validate}.
 */
class ManifestShapeTest {
    static final Set<String> FIELDS = Set.of(
            "apiVersion", "kind", "metadata.name", "metadata.labels.crucible.dev/derived-from",
            "spec.image",
            "spec.source.repo", "spec.source.commit", "spec.source.workflow", "spec.source.job", "spec.source.matrix.*",
            "spec.workspace.path",
            "spec.setup.script", "spec.setup.timeoutSeconds", "spec.setup.toolchains.*", "spec.setup.env.*",
            "spec.setup.secretEnv[]",
            "spec.task.prompt", "spec.tools[]",
            "spec.verifier.type", "spec.verifier.framework", "spec.verifier.command", "spec.verifier.reportPath", "spec.verifier.protectedPaths[]", "spec.source.testStep",
            "spec.verifier.timeoutSeconds", "spec.verifier.rewardMode", "spec.verifier.countSkippedAsPassed",
            "spec.additionalVerifiers[].name", "spec.additionalVerifiers[].type", "spec.additionalVerifiers[].command",
            "spec.additionalVerifiers[].timeoutSeconds");

    @TempDir
    Path dir;

    @Test
    void everyDerivedFieldIsKnown() throws Exception {
        Path repo = WorkflowFixtures.repository(dir);
        Set<String> seen = new TreeSet<>();
        Object[][] cases = {
            {"python-tox-matrix.yml", null, Map.of()}, {"python-tox-matrix.yml", null, Map.of("python-version", "3.12")},
            {"node.yml", null, Map.of()}, {"maven.yml", null, Map.of()}, {"go.yml", null, Map.of()},
            {"rust.yml", null, Map.of()}, {"monorepo.yml", null, Map.of()}, {"monorepo.yml", "frontend", Map.of()},
            {"secrets.yml", null, Map.of()}, {"lint-only.yml", null, Map.of()}, {"lint-only.yml", "pre-commit", Map.of()},
            {"composite-action.yml", null, Map.of()},
        };
        for (Object[] c : cases) {
            @SuppressWarnings("unchecked")
            Derivation d = WorkflowFixtures.derive(repo, (String) c[0], (String) c[1], (Map<String, String>) c[2], null);
            collect("", d.manifest(), seen);
            assertThat(d.manifest().at("/spec/verifier/type").asText()).isIn("execution", "test-suite");
            assertThat(d.manifest().at("/spec/verifier/command").asText()).isNotBlank();
        }
        Set<String> known = new TreeSet<>();
        for (String s : seen) {
            known.add(FIELDS.stream().anyMatch(f -> matches(f, s)) ? "ok" : s);
        }
        assertThat(known).containsOnly("ok");
        assertThat(seen).contains("spec.verifier.reportPath", "spec.setup.secretEnv[]",
                "spec.additionalVerifiers[].command", "spec.source.matrix.python-version");
    }

    private static boolean matches(String pattern, String path) {
        return pattern.endsWith(".*") ? path.startsWith(pattern.substring(0, pattern.length() - 1)) : pattern.equals(path);
    }

    private static void collect(String prefix, JsonNode node, Set<String> out) {
        if (node.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                collect(prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey(), e.getValue(), out);
            }
        } else if (node.isArray()) {
            node.forEach(item -> collect(prefix + "[]", item, out));
        } else {
            out.add(prefix);
        }
    }
}
