package dev.crucible.derive;

import static dev.crucible.derive.WorkflowFixtures.derive;
import static dev.crucible.derive.WorkflowFixtures.repository;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** monorepo.yml: defaults.run at workflow (shell) and job (working-directory) level, two jobs. */
class MonorepoWorkflowTest {
    @TempDir
    Path dir;

    @Test
    void backendStepsRunInTheJobsWorkingDirectoryWithPipefail() throws Exception {
        Derivation d = derive(repository(dir), "monorepo.yml");

        assertThat(d.jobId()).isEqualTo("backend");
        assertThat(d.toolchains()).containsExactly(Map.entry("python", "3.11"));
        assertThat(d.env()).containsEntry("DATABASE_URL", "sqlite:///test.db")
                .containsEntry("DJANGO_SETTINGS_MODULE", "api.settings.test");
        // shell: bash (explicitly) means bash -eo pipefail on GitHub.
        assertThat(d.setupScript()).contains("(\ncd services/api\nset -o pipefail\npip install -r requirements.txt\n"
                + "pip install -e \".[test]\"\n)");
        assertThat(d.setupScript()).contains("python manage.py migrate --noinput");
        assertThat(d.notes()).anyMatch(n -> n.contains("service containers") && n.contains("redis:7"));
    }

    @Test
    void bothTestStepsAreKeptInOrder() throws Exception {
        Derivation d = derive(repository(dir), "monorepo.yml");

        assertThat(d.verifier().steps()).containsExactly(5, 6);
        assertThat(d.verifier().command()).containsSubsequence("set -e", "# step 5 (line 38): Unit tests",
                "cd services/api", "pytest tests/unit -q", "# step 6 (line 40): Integration tests", "cd services/api",
                "set -o pipefail", "pytest tests/integration -q -m \"not slow\" | tee integration.log");
        // Two pytest runs in one script (one piped): the grader's reporter through PYTEST_ADDOPTS reports both, per test.
        assertThat(d.verifier().type()).isEqualTo("test-suite");
        assertThat(d.verifier().framework()).isNull();
        // timeout-minutes: 15 on one step only, so the job's 20 minutes bound the whole command.
        assertThat(d.verifier().timeoutSeconds()).isEqualTo(20 * 60);
    }

    @Test
    void frontendJobUsesStepWorkingDirectoriesAndVersionFiles() throws Exception {
        Derivation d = derive(repository(dir), "monorepo.yml", "frontend", Map.of(), null);

        // pnpm is no toolchain the runtime provisions: setup installs the version pnpm/action-setup names through npm
        assertThat(d.toolchains()).containsExactly(Map.entry("node", "20.11.1"));
        assertThat(d.setupScript()).contains("npm install -g pnpm@9\n");
        assertThat(d.setupScript()).contains("cd web\nset -o pipefail\npnpm install --frozen-lockfile");
        assertThat(d.verifier().command()).isEqualTo("cd ./web && pnpm test -- --run");
        assertThat(d.lint().command()).contains("cd web").contains("pnpm run typecheck");
        assertThat(d.name()).endsWith("-frontend");
    }
}
