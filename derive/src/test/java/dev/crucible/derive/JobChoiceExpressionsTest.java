package dev.crucible.derive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 35 (wave 3): a job's name or runs-on holding an expression derive cannot resolve. GitHub lists a job named
 * `Test (${{ matrix.python }})` as `Test (3.12)`, the name a user copies into --job (or a --repos line): each
 * expression stands for one word there. And no unresolved expression in a name or runs-on breaks the choice.
 */
class JobChoiceExpressionsTest {
    @TempDir
    Path repo;

    private static final String WORKFLOW = """
            on: [push, workflow_call]
            jobs:
              lint:
                name: Lint ${{ matrix.python }}
                runs-on: ubuntu-latest
                strategy:
                  matrix:
                    python: ['3.12']
                steps:
                  - run: ruff check .
              unit:
                name: Tests on ${{ matrix.os }} (py ${{ matrix.os == 'x' && 'a }} b' || matrix.python }})
                runs-on: ${{ matrix.os }}
                strategy:
                  matrix:
                    os: [ubuntu-latest]
                    python: ['3.12']
                steps:
                  - run: python -m pytest tests/unit
              integration:
                name: Integration (${{ inputs.suite }})
                runs-on: ubuntu-latest
                steps:
                  - run: python -m pytest tests/integration
            """;

    private Derivation derive(String workflow, String job) throws DerivationException {
        return WorkflowFixtures.fromText(repo, "ci.yml", job, Map.of(), workflow);
    }

    @Test
    void aJobIsFoundByTheNameGitHubShowsEachExpressionOneWord() throws Exception {
        assertThat(derive(WORKFLOW, "Tests on ubuntu-latest (py 3.12)").jobId()).isEqualTo("unit");
        assertThat(derive(WORKFLOW, "tests on  ubuntu-latest (py 3.11)").jobId()).isEqualTo("unit"); // case, spacing
        assertThat(derive(WORKFLOW, "Integration (slow)").jobId()).isEqualTo("integration");
        assertThat(derive(WORKFLOW, "Integration ()").jobId()).isEqualTo("integration"); // an empty value
        // the name as written and the id still work
        assertThat(derive(WORKFLOW, "Integration (${{ inputs.suite }})").jobId()).isEqualTo("integration");
        assertThat(derive(WORKFLOW, "unit").jobId()).isEqualTo("unit");
    }

    @Test
    void anExpressionIsOneWordNotMany() {
        assertThatThrownBy(() -> derive(WORKFLOW, "Integration (slow and fast)")).isInstanceOf(DerivationException.class)
                .hasMessageContaining("no such job");
        assertThatThrownBy(() -> derive(WORKFLOW, "Tests on ubuntu-latest")).isInstanceOf(DerivationException.class)
                .hasMessageContaining("no such job");
        assertThat(JobChooser.shownAs("a.b ${{ x }}").matcher("aXb 1").matches()).isFalse(); // literal text stays literal
    }

    /** Unresolved runs-on and name expressions seen in CI files: the Linux test job is chosen whatever they hold. */
    @Test
    void unresolvedExpressionsInRunsOnOrNameDoNotBreakTheChoice() {
        String[] runsOn = {"${{ inputs.os }}", "${{ vars.RUNNER || 'ubuntu-latest' }}", "${{ fromJSON(inputs.runner) }}",
            "${{ startsWith(inputs.os, 'windows') && 'windows-latest' || 'ubuntu-latest' }}", "'${{ inputs.os }}-latest'",
            "[self-hosted, '${{ inputs.arch }}']", "${{ needs.setup.outputs.runner }}",
            "${{ contains(github.event.pull_request.labels.*.name, 'ci:win') && 'windows-latest' || 'ubuntu-latest' }}",
            "${{ case(inputs.os == 'w', 'windows-latest', 'ubuntu-latest') }}", "${{ matrix.os }}-${{ matrix.arch }}",
            "{group: big, labels: '${{ inputs.labels }}'}", "${{ toJSON(matrix) }}",
            "${{ github['repository'] == 'x' && 'macos-14' || 'ubuntu-latest' }}"};
        String[] names = {"Test ${{ matrix.python }} on ${{ inputs.os }}", "'${{ inputs.name }}'",
            "Tests (${{ github.event_name == 'push' && 'windows' || 'linux' }})", "Test ${{ matrix.os == 'x' && '}}' || 'y' }}",
            "\"${{ format('{0} {1}', inputs.a, inputs.b) }}\""};
        List<String> failures = new ArrayList<>();
        for (String r : runsOn) {
            for (String n : names) {
                String wf = """
                        on: [push, workflow_call]
                        jobs:
                          lint:
                            runs-on: ubuntu-latest
                            steps:
                              - run: ruff check .
                          test:
                            name: NAME
                            runs-on: RUNSON
                            strategy:
                              matrix:
                                python: ['3.12']
                            steps:
                              - run: python -m pytest
                        """.replace("NAME", n).replace("RUNSON", r);
                try {
                    String chose = derive(wf, null).jobId();
                    if (!chose.equals("test")) failures.add(r + " / " + n + ": chose " + chose);
                } catch (DerivationException | RuntimeException e) {
                    failures.add(r + " / " + n + ": " + e);
                }
            }
        }
        assertThat(failures).isEmpty();
    }
}
