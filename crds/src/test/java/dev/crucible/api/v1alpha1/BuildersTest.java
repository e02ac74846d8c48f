package dev.crucible.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.api.validation.ManifestReader;
import dev.crucible.api.validation.ManifestValidator;
import dev.crucible.api.validation.ValidationError;
import dev.crucible.api.v1alpha1.environment.VerifierType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the builders make is a manifest the validator (the webhook's and `crucible validate`'s) accepts. */
class BuildersTest {

    private static List<ValidationError> validate(String yaml) {
        ManifestReader.Result read = new ManifestReader().readString("built.yaml", yaml);
        List<ValidationError> errors = new ArrayList<>(read.errors());
        errors.addAll(new ManifestValidator().validateAll(read.manifests()));
        return errors;
    }

    @Test
    void builtObjectsAreValidManifests() {
        RLEnvironment env = RLEnvironmentBuilder.named("ns", "calc").image("python:3.12").prompt("fix divide()")
                .verifier(VerifierType.TEST_SUITE, "pytest -q", "tests/**").resources("500m", "512Mi")
                .sandbox("gvisor", "10.0.0.0/8:443").role("trainer", 2, 1, 120).build();
        Rollout rollout = RolloutBuilder.named("ns", "calc-a0").environment("calc").agent("python", "agent.py")
                .maxDurationSeconds(900).build();
        String yaml = Serialization.asYaml(env) + Serialization.asYaml(rollout);
        assertThat(validate(yaml)).isEmpty();
        assertThat(env.getSpec().topology.roles).singleElement().satisfies(r -> assertThat(r.replicas).isEqualTo(2));
        assertThat(rollout.getSpec().limits.maxDurationSeconds).isEqualTo(900);
        assertThat(rollout.getMetadata().getGeneration()).as("never set on an object to apply").isNull();
    }

    @Test
    void aBuiltObjectTheValidatorRefusesIsReportedByField() {
        Rollout rollout = RolloutBuilder.named("ns", "bad").environment("calc").agent("python", "agent.py").maxDurationSeconds(0).build();
        assertThat(validate(Serialization.asYaml(rollout))).extracting(ValidationError::path)
                .anyMatch(p -> p.contains("maxDurationSeconds"));
    }
}
