package dev.crucible.derive;

import static dev.crucible.derive.WorkflowFixtures.derive;
import static dev.crucible.derive.WorkflowFixtures.step;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** python-tox-matrix.yml: tox driven by a 3 OS x 4 Python matrix with exclude and include. */
class PythonToxWorkflowTest {
    @TempDir
    Path repo;

    @Test
    void defaultCombinationIsTheNewestStableThatRunsOnLinux() throws Exception {
        Derivation d = derive(repo, "python-tox-matrix.yml");

        // 3 x 4 = 12, minus macOS/3.9 = 11, plus the ubuntu/3.13 include that fits no combination = 12.
        // ubuntu/3.13 is marked experimental: the newest stable Linux one is ubuntu/3.12.
        assertThat(d.matrixCombinations()).isEqualTo(12);
        assertThat(d.matrix()).containsEntry("os", "ubuntu-latest").containsEntry("python-version", "3.12");
        assertThat(d.notes()).anyMatch(n -> n.contains("the newest stable one whose toolchain is available")
                && n.contains("skipped 7 combination(s) that run on Windows or macOS"));
        assertThat(d.jobId()).isEqualTo("test");
        assertThat(d.jobLine()).isEqualTo(18);
    }

    @Test
    void defaultCombinationSkipsToolchainsThatAreNotAvailable() throws Exception {
        ToolchainAvailability.use((language, version) -> !version.equals("3.12"));
        try {
            Derivation d = derive(repo, "python-tox-matrix.yml");
            assertThat(d.matrix()).containsEntry("os", "ubuntu-latest").containsEntry("python-version", "3.11");
        } finally {
            ToolchainAvailability.use((language, version) -> true);
        }
    }

    @Test
    void everyStepIsAccountedFor() throws Exception {
        Derivation d = derive(repo, "python-tox-matrix.yml", null, Map.of("python-version", "3.9"), null);

        assertThat(d.steps()).extracting(StepReport::decision).containsExactly(Disposition.DROPPED,
                Disposition.TOOLCHAIN, Disposition.SETUP, Disposition.DROPPED, Disposition.TEST, Disposition.DROPPED);
        assertThat(d.steps()).extracting(StepReport::line).containsExactly(39, 43, 53, 58, 62, 67);
        assertThat(step(d, 1).reason()).contains("actions/checkout");
        assertThat(step(d, 2).name()).isEqualTo("Set up Python 3.9");
        assertThat(step(d, 2).reason()).contains("needs python 3.9");
        assertThat(step(d, 4).reason()).contains("runner.os == 'Windows'").contains("false");
        assertThat(step(d, 5).reason()).contains("tox");
        assertThat(step(d, 6).reason()).contains("matrix.coverage");
    }

    @Test
    void manifestCarriesToolchainEnvSetupAndTox() throws Exception {
        Derivation d = derive(repo, "python-tox-matrix.yml", null, Map.of("python-version", "3.9"), null);

        assertThat(d.toolchains()).containsExactly(Map.entry("python", "3.9"));
        assertThat(d.env()).containsEntry("CI", "true").containsEntry("FORCE_COLOR", "1")
                .containsEntry("PIP_DISABLE_PIP_VERSION_CHECK", "1");
        assertThat(d.setupScript()).contains("# step 3 (line 53): Install dependencies\n(\n"
                + "python -m pip install --upgrade pip\npython -m pip install tox tox-gh-actions\n)");
        assertThat(d.setupScript()).doesNotContain("choco");
        // tox is a wrapper: the grader instruments the runners it starts (per test); the step's env rides along.
        assertThat(d.verifier().type()).isEqualTo("test-suite");
        assertThat(d.verifier().framework()).isNull();
        assertThat(d.verifier().command()).isEqualTo("PLATFORM=ubuntu-latest tox");
        assertThat(d.verifier().timeoutSeconds()).isEqualTo(30 * 60);
        assertThat(d.lint()).isNull();
        assertThat(d.secretEnv()).isEmpty();
    }

    @Test
    void matrixFlagPicksTheCombinationAndIncludeAddsItsValues() throws Exception {
        Derivation d = derive(repo, "python-tox-matrix.yml", null, Map.of("python-version", "3.12"), null);

        // Windows/3.12 comes first but is skipped; the 3.12 include added coverage=true to it.
        assertThat(d.matrix()).containsEntry("os", "ubuntu-latest").containsEntry("python-version", "3.12")
                .containsEntry("coverage", "true");
        assertThat(d.toolchains()).containsEntry("python", "3.12");
        StepReport upload = step(d, 6);
        assertThat(upload.decision()).isEqualTo(Disposition.DROPPED);
        assertThat(upload.reason()).contains("codecov/codecov-action").contains("CI-only");
        assertThat(upload.notes()).anyMatch(n -> n.contains("secrets.CODECOV_TOKEN"));
        // A dropped step's secret is not asked of the user.
        assertThat(d.secretEnv()).isEmpty();
    }

    @Test
    void includeOnlyCombinationCanBeChosen() throws Exception {
        Derivation d = derive(repo, "python-tox-matrix.yml", null, Map.of("python-version", "3.13"), null);

        assertThat(d.matrix()).containsEntry("os", "ubuntu-latest").containsEntry("experimental", "true");
        assertThat(d.manifest().at("/spec/source/matrix/python-version").asText()).isEqualTo("3.13");
    }
}
