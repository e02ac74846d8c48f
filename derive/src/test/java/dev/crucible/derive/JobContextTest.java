package dev.crucible.derive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Job-level settings that shape the environment or must be reported: container, needs, if, computed matrices. */
class JobContextTest {
    @TempDir
    Path repo;

    private Derivation derive(String workflow, Map<String, String> matrix) throws DerivationException {
        return new WorkflowDeriver().deriveFromText(new DerivationRequest(repo, null, ".github/workflows/ci.yml", null,
                matrix, null), workflow);
    }

    @Test
    void containerImageBecomesTheEnvironmentImage() throws Exception {
        Derivation d = derive("""
                on: push
                jobs:
                  test:
                    runs-on: ubuntu-latest
                    needs: [build]
                    if: github.repository == 'octo/app'
                    container:
                      image: python:3.12-slim
                      options: --user root
                    steps:
                      - uses: actions/checkout@v4
                      - run: pip install -e .[test]
                      - run: python -m unittest discover -s tests -v
                  build:
                    runs-on: ubuntu-latest
                    steps:
                      - run: make dist
                """, Map.of());

        assertThat(d.containerImage()).isEqualTo("python:3.12-slim");
        assertThat(d.manifest().at("/spec/image").asText()).isEqualTo("python:3.12-slim");
        assertThat(d.verifier().command()).isEqualTo("python -m unittest discover -s tests -v");
        // graded per test: the grader recognises python -m unittest and asks it for each outcome itself
        assertThat(d.verifier().type()).isEqualTo("test-suite");
        assertThat(d.verifier().framework()).isNull();
        assertThat(d.notes()).anyMatch(n -> n.contains("needs [build]"))
                .anyMatch(n -> n.contains("github.repository == 'octo/app'") && n.contains("depends on how GitHub ran it"));
    }

    @Test
    void nonGatingTestStepsAreLeftOutWhenOthersGate() throws Exception {
        Derivation d = derive("""
                on: push
                jobs:
                  test:
                    runs-on: ubuntu-latest
                    strategy:
                      matrix:
                        experimental: [false]
                    steps:
                      - run: go test ./...
                      - name: Flaky integration suite
                        run: go test -tags integration ./integration/...
                        continue-on-error: ${{ matrix.experimental == 'false' }}
                """, Map.of());

        assertThat(d.verifier().steps()).containsExactly(1);
        assertThat(d.steps().get(1).decision()).isEqualTo(Disposition.DROPPED);
        assertThat(d.steps().get(1).reason()).contains("continue-on-error");
    }

    @Test
    void computedMatrixNeedsEveryValueFromTheUser() throws Exception {
        String workflow = """
                on: push
                jobs:
                  test:
                    runs-on: ubuntu-latest
                    strategy:
                      matrix: ${{ fromJSON(needs.plan.outputs.matrix) }}
                    steps:
                      - run: tox -e ${{ matrix.env }}
                """;
        assertThatThrownBy(() -> derive(workflow, Map.of())).isInstanceOf(DerivationException.class)
                .hasMessageContaining("ci.yml:6: job 'test': the matrix is computed at run time");

        Derivation d = derive(workflow, Map.of("env", "py312"));
        assertThat(d.verifier().command()).isEqualTo("tox -e py312");
        assertThat(d.notes()).anyMatch(n -> n.contains("used the --matrix values as given"));
    }

    @Test
    void envExpressionsAfterAGithubEnvWriteAreFlagged() throws Exception {
        Derivation d = derive("""
                on: push
                env:
                  CARGO: cargo
                jobs:
                  test:
                    runs-on: ubuntu-latest
                    steps:
                      - run: echo "CARGO=cross" >> "$GITHUB_ENV"
                      - run: ${{ env.CARGO }} test
                """, Map.of());

        assertThat(d.verifier().command()).isEqualTo("cargo test");
        assertThat(d.notes()).anyMatch(n -> n.contains("step 1 writes $GITHUB_ENV") && n.contains("step 2"));
    }

    @Test
    void windowsOnlyJobIsReported() throws Exception {
        Derivation d = derive("""
                on: push
                jobs:
                  test:
                    runs-on: windows-latest
                    steps:
                      - run: cargo test
                """, Map.of());

        assertThat(d.notes()).anyMatch(n -> n.contains("runs on windows-latest in CI"));
    }
}
