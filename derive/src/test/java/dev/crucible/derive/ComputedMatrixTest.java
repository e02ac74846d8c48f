package dev.crucible.derive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 35.3: a matrix CI computes with fromJSON is resolved from the producing step or the project's declarations. */
class ComputedMatrixTest {
    @TempDir
    Path repo;

    private static final String HEAD = """
            on: [push]
            jobs:
              setup:
                runs-on: ubuntu-latest
                outputs:
                  matrix: ${{ steps.m.outputs.matrix }}
                  versions: ${{ steps.v.outputs.versions }}
                steps:
                  - uses: actions/checkout@v4
                  - id: m
                    run: echo 'matrix={"python-version":["3.11","3.12"],"os":["ubuntu-latest"]}' >> "$GITHUB_OUTPUT"
                  - id: v
                    run: python3 ci/versions.py >> $GITHUB_OUTPUT
              tests:
                needs: setup
                runs-on: ${{ matrix.os }}
                strategy:
            """;
    private static final String STEPS = """
                steps:
                  - uses: actions/checkout@v4
                  - uses: actions/setup-python@v5
                    with:
                      python-version: ${{ matrix.python-version }}
                  - run: pip install -e .
                  - run: pytest
            """;

    private String commit(String matrix) throws Exception {
        Files.createDirectories(repo.resolve(".github/workflows"));
        Files.createDirectories(repo.resolve("ci"));
        Files.writeString(repo.resolve(".github/workflows/ci.yml"), HEAD + matrix + STEPS);
        // what CI computes differs from what the project declares, so each source shows in the result
        Files.writeString(repo.resolve("ci/versions.py"), "import json\nprint('versions=' + json.dumps(['3.8', '3.10']))\n");
        Files.writeString(repo.resolve("pyproject.toml"), "[project]\nname = \"p\"\nrequires-python = \">=3.9, <3.11\"\n");
        git("init", "-q");
        git("add", "-A");
        git("-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "ci");
        return "HEAD";
    }

    private void git(String... args) throws Exception {
        List<String> argv = new java.util.ArrayList<>(List.of("git", "-C", repo.toString()));
        argv.addAll(List.of(args));
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(new String(p.getInputStream().readAllBytes())).isZero();
    }

    @Test
    void aWholeMatrixWrittenAsALiteralIsReadFromTheProducingStep() throws Exception {
        String c = commit("      matrix: ${{ fromJSON(needs.setup.outputs.matrix) }}\n");
        Derivation d = new WorkflowDeriver().derive(repo, c, ".github/workflows/ci.yml", "tests", Map.of(), null);
        assertThat(d.matrixCombinations()).isEqualTo(2);
        assertThat(d.matrix()).containsEntry("os", "ubuntu-latest").containsKey("python-version");
        assertThat(d.notes()).anyMatch(n -> n.contains("job 'setup' step 'm', which writes it as a literal"));
    }

    @Test
    void aKeyAStepComputesIsRunInAnExportOfTheCommitWhenAllowedElseTakenFromDeclaredVersions() throws Exception {
        assumeTrue(new ProcessBuilder("python3", "--version").start().waitFor() == 0, "python3 is not on PATH");
        String c = commit("      matrix:\n        os: [ubuntu-latest]\n        python-version: ${{ fromJson(needs.setup.outputs.versions) }}\n");
        Derivation ran = WorkflowDeriver.runningRepositorySteps().derive(repo, c, ".github/workflows/ci.yml", "tests", Map.of(), null);
        assertThat(ran.matrixCombinations()).isEqualTo(2);
        assertThat(ran.notes()).anyMatch(n -> n.contains("ran job 'setup' step 'v'") && n.contains("[\"3.8\", \"3.10\"]"));
        assertThat(ran.toolchains().get("python")).isIn("3.8", "3.10");

        // not allowed to run repository code (the operator): the project's requires-python, >=3.9, <3.11
        Derivation declared = new WorkflowDeriver().derive(repo, c, ".github/workflows/ci.yml", "tests", Map.of(), null);
        assertThat(declared.matrixCombinations()).isEqualTo(2);
        assertThat(declared.toolchains().get("python")).isIn("3.9", "3.10");
        assertThat(declared.notes()).anyMatch(n -> n.contains("pyproject.toml requires-python >=3.9, <3.11") && n.contains("[3.9, 3.10]"));
    }

    @Test
    void aWholeMatrixFromAnInputIsRebuiltFromDeclarationsOrRefusedNamingTheKeys() throws Exception {
        String c = commit("      matrix: ${{ fromJSON(inputs.matrix) }}\n");
        Derivation d = new WorkflowDeriver().derive(repo, c, ".github/workflows/ci.yml", "tests", Map.of(), null);
        assertThat(d.matrix()).containsEntry("os", "ubuntu-latest").containsKey("python-version");
        assertThat(d.matrixCombinations()).isEqualTo(2);

        Files.delete(repo.resolve("pyproject.toml"));
        git("-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qam", "no declarations");
        assertThatThrownBy(() -> new WorkflowDeriver().derive(repo, "HEAD", ".github/workflows/ci.yml", "tests", Map.of(), null))
                .hasMessageContaining("computed at run time").hasMessageContaining("--matrix");
    }

    @Test
    void outputFilesAndLiteralEchoes() {
        assertThat(ComputedMatrix.outputValue("a=1\nm<<EOF\n[\"x\"]\nEOF\n", "m")).isEqualTo("[\"x\"]\n");
        assertThat(ComputedMatrix.outputValue("m=1\nm=2\n", "m")).isEqualTo("2");
        assertThat(ComputedMatrix.literalOutput("echo \"m=[\\\"3.9\\\"]\" >> $GITHUB_OUTPUT", "m")).isEqualTo("[\"3.9\"]");
        assertThat(ComputedMatrix.literalOutput("echo \"m=$(cat x)\" >> $GITHUB_OUTPUT", "m")).isNull();
        assertThat(ComputedMatrix.literalOutput("echo \"::set-output name=m::[1]\"", "m")).isEqualTo("[1]");
    }
}
