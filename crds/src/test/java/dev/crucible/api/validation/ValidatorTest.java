package dev.crucible.api.validation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Focused checks of the validator's behaviour beyond the example files. */
class ValidatorTest {

    private final ManifestValidator validator = new ManifestValidator();

    private List<ValidationError> validate(String yaml) {
        ManifestReader.Result read = new ManifestReader().readString("t.yaml", yaml);
        List<ValidationError> errors = new java.util.ArrayList<>(read.errors());
        errors.addAll(validator.validateAll(read.manifests()));
        return errors;
    }

    private static final String ENV = """
            apiVersion: crucible.dev/v1alpha1
            kind: RLEnvironment
            metadata:
              name: e1
            spec:
              image: example/env:1
              task:
                prompt: fix it
              verifier:
                type: test-suite
                framework: pytest
                command: pytest -q
            """;

    @Test
    void errorLineHasFileLinePathAndMessage() {
        List<ValidationError> errors = validate(ENV.replace("type: test-suite", "type: nope"));
        assertThat(errors).hasSize(1);
        assertThat(errors.get(0).toString())
                .startsWith("t.yaml:10: spec.verifier.type: ")
                .contains("test-suite");
        assertThat(errors.get(0).resource()).isEqualTo("RLEnvironment/e1");
    }

    @Test
    void rolloutResolvesEnvironmentInAnotherDocumentOfTheSameStream() {
        String rollout = """
                ---
                apiVersion: crucible.dev/v1alpha1
                kind: Rollout
                metadata:
                  name: r1
                spec:
                  environmentRef:
                    name: e1
                  mode: interactive
                """;
        assertThat(validate(ENV + rollout)).isEmpty();
        assertThat(validate(ENV.replace("name: e1", "name: e2") + rollout))
                .extracting(ValidationError::path).containsExactly("spec.environmentRef.name");
    }

    @Test
    void secondDocumentErrorsCarryItsNumber() {
        String second = ENV.replace("name: e1", "name: e2").replace("prompt: fix it", "prompt: \"\"");
        List<ValidationError> errors = validate(ENV + "---\n" + second);
        assertThat(errors).hasSize(1);
        assertThat(errors.get(0).document()).isEqualTo(2);
        assertThat(errors.get(0).path()).isEqualTo("spec.task.prompt");
    }

    @Test
    void defaultsAreAppliedBeforeCelLikeTheApiServer() {
        // mode defaults to embedded, which needs an agent: the rule must see the default.
        String rollout = """
                apiVersion: crucible.dev/v1alpha1
                kind: Rollout
                metadata:
                  name: r1
                  annotations:
                    crucible.dev/external-environment: "true"
                spec:
                  environmentRef:
                    name: elsewhere
                """;
        assertThat(validate(rollout)).extracting(ValidationError::path).containsExactly("spec.agent");
    }

    @Test
    void integerWrittenForANumberFieldIsCompared() {
        String probe = """
                apiVersion: crucible.dev/v1alpha1
                kind: RLEnvironment
                metadata:
                  name: e1
                spec:
                  image: example/env:1
                  task: {prompt: p}
                  verifier: {type: execution, command: "true"}
                  learnableBand: {minSolveRate: 1, maxSolveRate: 0.5}
                """;
        assertThat(validate(probe)).extracting(ValidationError::path).containsExactly("spec.learnableBand.minSolveRate");
    }

    @Test
    void unknownKindAndNonMappingDocumentsAreErrorsNotExceptions() {
        assertThat(validate("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"))
                .extracting(ValidationError::path).containsExactly("kind");
        assertThat(validate("- just\n- a list\n")).extracting(ValidationError::path).containsExactly("(document)");
        assertThat(validate("key: [unclosed\n")).hasSize(1);
    }
}
