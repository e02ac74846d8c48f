package dev.crucible.cli.derive;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code crucible derive} end to end on a real git repository: output, report, errors and exit codes. */
class DeriveCommandTest {
    private static final String WORKFLOW = """
            name: CI
            on: [push]
            jobs:
              test:
                runs-on: ubuntu-latest
                strategy:
                  matrix:
                    python-version: ["3.11", "3.12"]
                steps:
                  - uses: actions/checkout@v4
                  - uses: actions/setup-python@v5
                    with:
                      python-version: ${{ matrix.python-version }}
                  - run: pip install -r requirements.txt
                  - name: Lint
                    run: ruff check .
                  - name: Tests
                    run: pytest -q
            """;

    @TempDir
    Path dir;
    Path repo;
    final StringWriter out = new StringWriter();
    final StringWriter err = new StringWriter();

    @BeforeEach
    void repository() throws Exception {
        repo = dir.resolve("my-project");
        Files.createDirectories(repo.resolve(".github/workflows"));
        Files.writeString(repo.resolve(".github/workflows/ci.yml"), WORKFLOW);
        Files.writeString(repo.resolve(".github/workflows/broken.yml"), "jobs:\n  test:\n    steps: [\n");
        git("init", "-q", "-b", "main");
        git("add", "-A");
        git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "ci");
    }

    private void git(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("git", "-C", repo.toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("git failed: " + output);
        }
    }

    private int run(String... args) {
        CommandLine cli = new CommandLine(new DeriveCommand());
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args);
    }

    @Test
    void printsTheManifestWithTheReport() throws Exception {
        int exit = run("--repo", repo.toString(), "--commit", "HEAD", "--workflow", ".github/workflows/ci.yml",
                "--matrix", "python-version=3.12");

        assertThat(exit).as(err.toString()).isZero();
        assertThat(out.toString()).startsWith("# Derived by `crucible derive` from .github/workflows/ci.yml");
        JsonNode manifest = new YAMLMapper().readTree(out.toString());
        assertThat(manifest.at("/metadata/name").asText()).isEqualTo("my-project-test");
        assertThat(manifest.at("/spec/source/commit").asText()).hasSize(40);
        assertThat(manifest.at("/spec/source/matrix/python-version").asText()).isEqualTo("3.12");
        assertThat(manifest.at("/spec/setup/toolchains/python").asText()).isEqualTo("3.12");
        assertThat(manifest.at("/spec/verifier/command").asText()).isEqualTo("pytest -q");
        assertThat(manifest.at("/spec/additionalVerifiers/0/command").asText()).isEqualTo("ruff check .");
    }

    @Test
    void writesManifestAndReportFiles() throws Exception {
        Path manifest = dir.resolve("out/env.yaml");
        Path report = dir.resolve("out/report.json");

        int exit = run("--repo", repo.toString(), "--commit", "HEAD", "--workflow", "ci.yml", "-o", manifest.toString(),
                "--report", report.toString());

        assertThat(exit).as(err.toString()).isZero();
        assertThat(out.toString()).isEmpty();
        assertThat(err.toString()).contains("wrote " + manifest).contains("pytest -q");
        assertThat(new YAMLMapper().readTree(manifest.toFile()).at("/kind").asText()).isEqualTo("RLEnvironment");
        JsonNode r = new ObjectMapper().readTree(report.toFile());
        assertThat(r.at("/steps")).hasSize(5);
        assertThat(r.at("/steps/4/decision").asText()).isEqualTo("test");
        try (var files = Files.list(dir.resolve("out"))) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("env.yaml", "report.json");
        }
    }

    @Test
    void errorsNameFileJobAndLineAndWriteNothing() throws Exception {
        Path manifest = dir.resolve("env.yaml");
        Files.writeString(manifest, "previous content\n");

        int noJob = run("--repo", repo.toString(), "--commit", "HEAD", "--workflow", "ci.yml", "--job", "lint",
                "-o", manifest.toString(), "--report", dir.resolve("report.json").toString());
        assertThat(noJob).isEqualTo(2);
        assertThat(err.toString()).contains("crucible derive: .github/workflows/ci.yml:3: job 'lint': no such job");

        int broken = run("--repo", repo.toString(), "--commit", "HEAD", "--workflow", "broken.yml", "-o",
                manifest.toString());
        assertThat(broken).isEqualTo(2);
        assertThat(err.toString()).contains(".github/workflows/broken.yml:").contains("YAML does not parse");

        int noTests = run("--repo", repo.toString(), "--commit", "HEAD", "--workflow", "ci.yml", "--test-step", "9");
        assertThat(noTests).isEqualTo(2);
        assertThat(err.toString()).contains("--test-step '9' names no step");

        assertThat(manifest).hasContent("previous content");
        assertThat(dir.resolve("report.json")).doesNotExist();
        try (var files = Files.list(dir)) {
            assertThat(files.filter(p -> p.getFileName().toString().endsWith(".tmp"))).isEmpty();
        }
        assertThat(out.toString()).isEmpty();
    }

    /** No --workflow: the workflows at the commit are tried (test/CI-named first), the broken one is skipped, and stderr says which was used. */
    @Test
    void withoutWorkflowTheOneThatRunsTestsIsFoundAndNamed() throws Exception {
        Files.writeString(repo.resolve(".github/workflows/docs.yml"), """
                on: push
                jobs:
                  docs:
                    runs-on: ubuntu-latest
                    steps:
                      - uses: actions/checkout@v4
                      - run: mkdocs build
                """);
        git("add", "-A");
        git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "docs");
        int exit = run("--repo", repo.toString(), "--commit", "HEAD", "--matrix", "python-version=3.12");
        assertThat(exit).as(err.toString()).isZero();
        assertThat(err.toString()).contains("no --workflow given; using .github/workflows/ci.yml");
        JsonNode manifest = new YAMLMapper().readTree(out.toString());
        assertThat(manifest.at("/spec/verifier/command").asText()).isEqualTo("pytest -q");
        assertThat(manifest.at("/spec/source/matrix/python-version").asText()).isEqualTo("3.12");

        // only workflows that do not test: an error that names each one's problem and --workflow
        git("rm", "-q", ".github/workflows/ci.yml");
        git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "no ci");
        assertThat(run("--repo", repo.toString(), "--commit", "HEAD")).isEqualTo(2);
        assertThat(err.toString()).contains("no workflow runs tests", "docs.yml", "broken.yml", "--workflow");
    }

    @Test
    void usageErrorsExitTwo() {
        assertThat(run("--repo", repo.toString(), "--workflow", "ci.yml")).isEqualTo(2);
        assertThat(err.toString()).contains("--commit");
        assertThat(run("--repo", dir.resolve("nope").toString(), "--commit", "HEAD", "--workflow", "ci.yml"))
                .isEqualTo(2);
        assertThat(err.toString()).contains("no such directory");
    }
}
