package dev.crucible.derive;

import static dev.crucible.derive.WorkflowFixtures.derive;
import static dev.crucible.derive.WorkflowFixtures.step;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * secret-uploader.yml, syncthing's shape: the test step pipes `go test -json` into an uploader whose address and
 * password come from secrets, a step before installs that uploader, another logs in with a secret. None of it
 * builds or tests; with it kept, setup stopped at the uploader's `go install` (refused by this machine's Go proxy).
 */
class SecretStepsTest {
    @TempDir
    Path repo;

    @Test
    void theUploaderStageItsInstallAndTheSecretStepAreLeftOutTheRunnerStays() throws Exception {
        Derivation d = derive(WorkflowFixtures.repository(repo), "secret-uploader.yml");

        assertThat(d.verifier().command()).contains("go test -json ./...").doesNotContain("loki").doesNotContain("|");
        assertThat(step(d, 6).notes()).anyMatch(n -> n.contains("go-test-json-to-loki") && n.contains("secrets.LOKI_URL"));
        assertThat(step(d, 5).decision()).isEqualTo(Disposition.DROPPED);
        assertThat(step(d, 5).reason()).contains("REGISTRY_TOKEN").contains("needs secrets");
        assertThat(step(d, 4).decision()).isEqualTo(Disposition.DROPPED);
        assertThat(step(d, 4).reason()).contains("go-test-json-to-loki");
        assertThat(d.setupScript()).doesNotContain("go-test-json-to-loki").doesNotContain("oras");
        // Nothing is left for the user to provide: no step that is kept needs a secret.
        assertThat(d.secretEnv()).isEmpty();
        assertThat(d.env()).doesNotContainKeys("LOKI_URL", "LOKI_PASSWORD");
    }

    @Test
    void aPipeInsideQuotesOrAnOrIsNoStage() {
        assertThat(SecretSteps.pipeStages("go test ./... | tee 'a|b' || true"))
                .containsExactly("go test ./...", "tee 'a|b' || true");
        assertThat(SecretSteps.pipeStages("pytest -k \"a|b\"")).containsExactly("pytest -k \"a|b\"");
    }
}
