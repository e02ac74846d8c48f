package dev.crucible.derive;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.api.v1alpha1.environment.DerivedStatus;
import dev.crucible.api.validation.ManifestValidator;
import dev.crucible.api.validation.ValidationError;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contract with the API module. Issue 9's "done when": every manifest derived from the fixture
 * workflows passes the same validator as {@code crucible validate} (CRD schema, CEL rules, semantic
 * checks), exactly as it is printed; and the status tree fits the RLEnvironment status type.
 */
class DerivedManifestsValidateTest {
    @TempDir
    Path dir;

    @Test
    void everyDerivedManifestIsValid() throws Exception {
        Path repo = WorkflowFixtures.repository(Files.createDirectories(dir.resolve("repo")));
        Path out = Files.createDirectories(dir.resolve("manifests"));
        Object[][] cases = {
            {"python-tox-matrix.yml", null, Map.of(), null},
            {"python-tox-matrix.yml", null, Map.of("python-version", "3.12"), null},
            {"node.yml", null, Map.of(), null}, {"maven.yml", null, Map.of(), null}, {"go.yml", null, Map.of(), null},
            {"rust.yml", null, Map.of(), null}, {"rust.yml", "msrv", Map.of(), "3"},
            {"monorepo.yml", null, Map.of(), null}, {"monorepo.yml", "frontend", Map.of(), null},
            {"secrets.yml", null, Map.of(), null}, {"lint-only.yml", null, Map.of(), null},
            {"lint-only.yml", "pre-commit", Map.of(), null}, {"composite-action.yml", null, Map.of(), null},
        };
        int n = 0;
        for (Object[] c : cases) {
            @SuppressWarnings("unchecked")
            Derivation d = WorkflowFixtures.derive(repo, (String) c[0], (String) c[1], (Map<String, String>) c[2],
                    (String) c[3]);
            // A commit as the CLI always records one (deriveFromText has none to resolve).
            d.manifest().with("spec").with("source").put("commit", "0123456789abcdef0123456789abcdef01234567");
            Files.writeString(out.resolve(String.format("%02d-%s", n++, c[0])), d.manifestYaml());
        }

        List<ValidationError> errors = new ManifestValidator().validatePaths(List.of(out));

        assertThat(errors).isEmpty();
    }

    /** The reconciler copies the status tree into the API type; every field must exist there. */
    @Test
    void statusTreeConvertsToTheApiType() throws Exception {
        Derivation d = WorkflowFixtures.derive(WorkflowFixtures.repository(dir), "monorepo.yml");

        DerivedStatus status = new ObjectMapper().treeToValue(d.statusTree(), DerivedStatus.class);

        assertThat(status.job).isEqualTo("backend");
        assertThat(status.testCommand).contains("pytest tests/unit -q");
        assertThat(status.steps).hasSize(6);
        assertThat(status.steps.get(4).decision).isEqualTo("test");
        assertThat(status.steps.get(4).line).isEqualTo(38);
    }

    /** The check above is only worth something if the validator rejects what the CRD does not know. */
    @Test
    void validatorRejectsAFieldTheCrdLacks() throws Exception {
        Derivation d = WorkflowFixtures.derive(dir, "node.yml");
        d.manifest().with("spec").with("source").put("commit", "0123456789abcdef0123456789abcdef01234567");
        d.manifest().with("spec").with("verifier").put("notAField", "x");
        Path file = Files.writeString(dir.resolve("bad.yaml"), d.manifestYaml());

        List<ValidationError> errors = new ManifestValidator().validatePaths(List.of(file));

        assertThat(errors).extracting(ValidationError::path).anyMatch(p -> p.contains("notAField"));
    }
}
