package dev.crucible.derive;

import static dev.crucible.derive.WorkflowFixtures.derive;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every error names the workflow file, the job where there is one, and the line. */
class DerivationErrorsTest {
    @TempDir
    Path repo;

    private DerivationException failure(String resource, String job, Map<String, String> matrix, String testStep) {
        return catchThrowableOfType(DerivationException.class, () -> derive(repo, resource, job, matrix, testStep));
    }

    @Test
    void yamlThatDoesNotParse() {
        DerivationException e = failure("broken-indentation.yml", null, Map.of(), null);
        assertThat(e.file()).isEqualTo(".github/workflows/broken-indentation.yml");
        assertThat(e.line()).isEqualTo(10);
        assertThat(e.getMessage()).startsWith(".github/workflows/broken-indentation.yml:10: YAML does not parse");
    }

    @Test
    void stepWithBothUsesAndRun() {
        DerivationException e = failure("broken-step.yml", null, Map.of(), null);
        assertThat(e.job()).isEqualTo("test");
        assertThat(e.line()).isEqualTo(8);
        assertThat(e.getMessage()).contains("step 2 has both 'uses' and 'run'");
    }

    @Test
    void noSuchJobListsTheJobs() {
        DerivationException e = failure("rust.yml", "lint", Map.of(), null);
        assertThat(e.getMessage()).isEqualTo(".github/workflows/rust.yml:12: job 'lint': no such job; the workflow "
                + "has jobs 'test' (line 13), 'msrv' (line 39)");
    }

    @Test
    void jobWithoutTestsNamesItsSteps() {
        DerivationException e = failure("no-test-step.yml", null, Map.of(), null);
        assertThat(e.job()).isEqualTo("docs");
        assertThat(e.line()).isEqualTo(6);
        assertThat(e.problem()).contains("no step that runs tests").contains("'Build docs' (line 14)")
                .contains("--test-step");
    }

    @Test
    void unknownTestStep() {
        DerivationException e = failure("node.yml", null, Map.of(), "Run the tests");
        assertThat(e.getMessage()).contains("job 'build'").contains("--test-step 'Run the tests' names no step");
    }

    @Test
    void testStepThatUsesAnAction() {
        DerivationException e = failure("maven.yml", null, Map.of(), "Set up JDK 17");
        assertThat(e.line()).isEqualTo(17);
        assertThat(e.problem()).contains("uses an action");
    }

    @Test
    void reusableWorkflowJob() {
        DerivationException e = failure("reusable-caller.yml", null, Map.of(), null);
        assertThat(e.line()).isEqualTo(4);
        assertThat(e.problem()).contains("reusable workflow octo-org/shared-workflows");
    }

    @Test
    void badExpression() {
        DerivationException e = failure("bad-expression.yml", null, Map.of(), null);
        assertThat(e.line()).isEqualTo(8);
        assertThat(e.problem()).contains("step 2 (Test)").contains("matrix.os ==");
    }

    @Test
    void matrixValueThatNoCombinationHas() {
        DerivationException e = failure("rust.yml", null, Map.of("toolchain", "1.0"), null);
        assertThat(e.line()).isEqualTo(18);
        assertThat(e.problem()).contains("toolchain=stable | toolchain=beta | toolchain=nightly");
    }

    @Test
    void matrixKeyThatDoesNotExist() {
        DerivationException e = failure("rust.yml", null, Map.of("os", "ubuntu-latest"), null);
        assertThat(e.problem()).contains("no key 'os'").contains("keys: toolchain");
    }

    @Test
    void matrixFlagForAJobWithoutMatrix() {
        DerivationException e = failure("maven.yml", null, Map.of("java", "21"), null);
        assertThat(e.problem()).contains("the job has no matrix");
    }

    @Test
    void notAWorkflow() {
        DerivationException e = catchThrowableOfType(DerivationException.class, () -> new WorkflowDeriver()
                .deriveFromText(new DerivationRequest(repo, null, "ci.yml", null, Map.of(), null), "name: x\non: push\n"));
        assertThat(e.getMessage()).isEqualTo("ci.yml:1: not a GitHub Actions workflow: it has no 'jobs:' section");
    }

    @Test
    void duplicateKeys() {
        DerivationException e = catchThrowableOfType(DerivationException.class, () -> new WorkflowDeriver()
                .deriveFromText(new DerivationRequest(repo, null, "ci.yml", null, Map.of(), null),
                        "on: push\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n      - run: pytest\n"
                                + "  t:\n    steps:\n      - run: tox\n"));
        assertThat(e.line()).isEqualTo(7);
        assertThat(e.problem()).contains("duplicate key 't'");
    }
}
