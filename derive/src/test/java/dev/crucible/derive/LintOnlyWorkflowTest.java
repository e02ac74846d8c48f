package dev.crucible.derive;

import static dev.crucible.derive.WorkflowFixtures.derive;
import static dev.crucible.derive.WorkflowFixtures.step;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** lint-only.yml: a style workflow (seed 003's type-safety and style-guide agents need exactly this). */
class LintOnlyWorkflowTest {
    @TempDir
    Path repo;

    @Test
    void lintStepsBecomeTheVerifierWhenNothingTests() throws Exception {
        Derivation d = derive(repo, "lint-only.yml");

        assertThat(d.jobId()).isEqualTo("lint");
        assertThat(d.verifier().name()).isEqualTo("lint");
        assertThat(d.verifier().type()).isEqualTo("execution");
        assertThat(d.verifier().steps()).containsExactly(4, 5, 6, 7);
        assertThat(d.verifier().command()).containsSubsequence("ruff check --output-format=github .",
                "black --check --diff .", "isort --check-only --diff .", "mypy src/");
        assertThat(d.verifier().timeoutSeconds()).isEqualTo(WorkflowDeriver.DEFAULT_LINT_TIMEOUT_SECONDS);
        assertThat(d.lint()).isNull();
        assertThat(d.manifest().has("additionalVerifiers")).isFalse();
        assertThat(d.setupScript()).contains("pip install ruff==0.6.9 mypy black isort");
        assertThat(d.toolchains()).containsExactly(Map.entry("python", "3.x"));
        assertThat(step(d, 4).reason()).contains("linting is the verifier");
        assertThat(d.notes()).anyMatch(n -> n.contains("no job runs tests"));
    }

    @Test
    void preCommitActionRunsTheHooks() throws Exception {
        Derivation d = derive(repo, "lint-only.yml", "pre-commit", Map.of(), null);

        assertThat(d.verifier().command()).isEqualTo("pre-commit run --show-diff-on-failure --color=never --all-files");
        assertThat(d.setupScript()).contains("python3 -m pip install pre-commit");
        assertThat(d.toolchains()).containsExactly(Map.entry("python", "*"));
        assertThat(step(d, 3).decision()).isEqualTo(Disposition.LINT);
    }
}
