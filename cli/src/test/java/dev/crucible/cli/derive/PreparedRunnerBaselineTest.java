package dev.crucible.cli.derive;

import static dev.crucible.cli.derive.BuiltRepos.git;
import static dev.crucible.cli.derive.BuiltRepos.onPath;
import static dev.crucible.cli.derive.BuiltRepos.write;
import static dev.crucible.cli.derive.CliInProcess.cli;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.crucible.cli.derive.CliInProcess.Result;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * lazygit's test step: {@code mkdir -p /tmp/code_coverage}, then {@code go test ./... -short -cover -args
 * "-test.gocoverdir=/tmp/code_coverage"}. The line before the runner made the whole command one execution; now the
 * baseline (two real no-op runs of real go test in the grading box) reports each test, so a test failing at HEAD is
 * excluded by name instead of failing the one execution.
 */
class PreparedRunnerBaselineTest {
    @TempDir
    Path dir;

    @Test
    void aFolderMadeBeforeGoTestLeavesTheSuiteGradedPerTest() throws Exception {
        assumeTrue(onPath("go"), "no go on PATH");
        Path repo = dir.resolve("calc");
        write(repo, ".github/workflows/ci.yml", """
                name: CI
                on: [push]
                jobs:
                  unit-tests:
                    runs-on: ubuntu-latest
                    steps:
                      - uses: actions/checkout@v4
                      - uses: actions/setup-go@v5
                        with: {go-version-file: go.mod}
                      - name: Test code
                        run: |
                          mkdir -p /tmp/code_coverage
                          go test ./... -short -cover -args "-test.gocoverdir=/tmp/code_coverage"
                """);
        write(repo, "go.mod", "module example.com/calc\n\ngo 1.21\n");
        write(repo, "calc.go", "package calc\n\nfunc Add(a, b int) int { return a + b }\n");
        write(repo, "calc_test.go", """
                package calc

                import "testing"

                func TestAdd(t *testing.T) { if Add(2, 3) != 5 { t.Fatal("2+3") } }

                func TestZero(t *testing.T) { if Add(0, 0) != 0 { t.Fatal("0+0") } }

                func TestDrifted(t *testing.T) { if Add(1, 1) != 3 { t.Fatal("expected what an old dependency gave") } }
                """);
        git(repo, "init", "-q", "-b", "main");
        git(repo, "add", "-A");
        git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "initial");

        Path manifest = dir.resolve("env.yaml");
        Result derive = cli("derive", "--repo", repo.toString(), "--commit", "HEAD", "--workflow", "ci.yml", "--baseline",
                "-o", manifest.toString());
        assertThat(derive.exit()).as(derive.err()).isZero();
        assertThat(derive.err()).contains("3 tests, 2 pass both times (passToPass), 1 excluded");
        JsonNode v = new YAMLMapper().readTree(manifest.toFile()).path("spec").path("verifier");
        assertThat(v.path("type").asText()).isEqualTo("test-suite");
        // -cover went, and with it -test.gocoverdir (a binary built without -cover refuses that flag)
        assertThat(v.path("command").asText()).contains("mkdir -p /tmp/code_coverage\ngo test ./... -short\n").doesNotContain("cover -args");
        assertThat(v.path("passToPass").toString()).contains("example.com/calc::TestAdd", "example.com/calc::TestZero")
                .doesNotContain("TestDrifted");
        assertThat(v.path("excludedTests").toString()).contains("example.com/calc::TestDrifted");
    }
}
