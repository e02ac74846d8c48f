package dev.crucible.derive;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 35.6 measurement: deno's generated CI lists its macOS test jobs before its Linux ones, and derive took the
 * first (test-debug-macos-x86_64) to run here on Linux. The first job that tests on Linux wins; a macOS-only
 * workflow still derives its first test job, and a runs-on expression is left to the matrix chooser.
 */
class JobChoiceOsTest {
    @TempDir
    Path repo;

    private Derivation derive(String workflow) throws DerivationException {
        return WorkflowFixtures.fromText(repo, "ci.yml", workflow);
    }

    @Test
    void aLinuxTestJobWinsOverAnEarlierMacosOne() throws Exception {
        Derivation d = derive("""
                on: push
                jobs:
                  test-macos:
                    runs-on: macos-14
                    steps:
                      - uses: actions/checkout@v4
                      - run: cargo test --workspace
                  test-windows:
                    runs-on: [self-hosted, windows-2022]
                    steps:
                      - run: cargo test --workspace
                  test-release-macos:
                    runs-on: '${{ github.event_name == ''pull_request'' && ''ubuntu-24.04'' || ''macos-15-intel'' }}'
                    steps:
                      - run: cargo test --release
                  test-linux:
                    runs-on: ubuntu-24.04
                    steps:
                      - uses: actions/checkout@v4
                      - run: cargo test --workspace
                """);
        assertThat(d.jobId()).isEqualTo("test-linux");
        assertThat(d.notes()).anyMatch(n -> n.contains("chose job 'test-linux'") && n.contains("the first job that runs tests on Linux"));
    }

    @Test
    void aMacosOnlyWorkflowAndAMatrixOsStillDeriveTheirFirstTestJob() throws Exception {
        assertThat(derive("""
                on: push
                jobs:
                  test:
                    runs-on: macos-latest
                    steps:
                      - run: cargo test
                """).jobId()).isEqualTo("test");
        assertThat(derive("""
                on: push
                jobs:
                  matrix:
                    strategy:
                      matrix:
                        os: [macos-latest, ubuntu-latest]
                    runs-on: ${{ matrix.os }}
                    steps:
                      - run: cargo test
                  linux:
                    runs-on: ubuntu-latest
                    steps:
                      - run: cargo test
                """).jobId()).isEqualTo("matrix");
    }
}
