package dev.crucible.derive;

import static dev.crucible.derive.WorkflowFixtures.derive;
import static dev.crucible.derive.WorkflowFixtures.step;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** secrets.yml: secrets at every level, a configuration variable, failure() and publishing steps. */
class SecretsWorkflowTest {
    @TempDir
    Path repo;

    @Test
    void noSecretValueOrExpressionReachesTheManifest() throws Exception {
        Derivation d = derive(repo, "secrets.yml");

        // The report comments name the secrets; the manifest itself carries no reference to one.
        String manifest = d.manifestYaml().lines().filter(l -> !l.strip().startsWith("#"))
                .reduce("", (a, b) -> a + b + "\n");
        assertThat(manifest).doesNotContainPattern("secrets\\.[A-Z]").doesNotContain("${{").contains("kind: RLEnvironment");
        assertThat(d.env()).doesNotContainKeys("AWS_ACCESS_KEY_ID", "API_TOKEN", "API_URL", "SENTRY_DSN");
        assertThat(d.env()).containsEntry("AWS_REGION", "us-east-1").containsEntry("REGION_LABEL", "region-us-east-1");
    }

    @Test
    void theUserIsToldWhichVariablesToProvide() throws Exception {
        Derivation d = derive(repo, "secrets.yml");

        // Env entries are left for the user under their env name; inline uses under the secret's name.
        assertThat(d.secretEnv()).containsExactly("AWS_ACCESS_KEY_ID", "API_TOKEN", "API_URL", "PYPI_TOKEN",
                "SENTRY_DSN");
        assertThat(d.manifest().at("/spec/setup/secretEnv").size()).isEqualTo(5);
        assertThat(d.setupScript()).contains("\"https://__token__:${PYPI_TOKEN}@pypi.example.com/simple\"");
        assertThat(step(d, 3).notes()).anyMatch(n -> n.contains("secrets.PYPI_TOKEN"));
        assertThat(step(d, 5).notes()).anyMatch(n -> n.contains("SENTRY_DSN"));
        assertThat(d.notes()).anyMatch(n -> n.contains("vars.API_VERSION"));
    }

    @Test
    void stepsOnlyForFailuresOrPublishingAreDropped() throws Exception {
        Derivation d = derive(repo, "secrets.yml");

        assertThat(step(d, 6).decision()).isEqualTo(Disposition.DROPPED);
        assertThat(step(d, 6).reason()).contains("failure()").contains("after a failed step");
        assertThat(step(d, 7).decision()).isEqualTo(Disposition.DROPPED);
        assertThat(step(d, 7).reason()).contains("twine upload");
        // TWINE_PASSWORD belongs to a dropped step: nobody needs to provide it.
        assertThat(d.secretEnv()).doesNotContain("TWINE_PASSWORD", "SLACK_WEBHOOK");
    }

    @Test
    void pytestWithStepEnvStaysOneGradableCommand() throws Exception {
        Derivation d = derive(repo, "secrets.yml");

        assertThat(d.verifier().type()).isEqualTo("test-suite");
        assertThat(d.verifier().framework()).isEqualTo("pytest");
        assertThat(d.verifier().command()).isEqualTo("LOG_LEVEL=debug python -m pytest -v tests/ --junitxml=report-.xml");
        assertThat(step(d, 5).notes()).anyMatch(n -> n.contains("github.run_id") && n.contains("empty"));
    }
}
