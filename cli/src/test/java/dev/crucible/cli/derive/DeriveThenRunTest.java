package dev.crucible.cli.derive;

import static dev.crucible.cli.derive.CliInProcess.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.cli.derive.CliInProcess.Result;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole path of issue 9: a real git repository with a CI workflow → {@code crucible derive} →
 * {@code crucible validate} → {@code crucible run}, where the derived setup script and test command
 * really run (pytest) and grade an honest and a breaking agent.
 */
class DeriveThenRunTest {

    private static final String WORKFLOW = """
            name: CI
            on: [push, pull_request]
            env:
              PYTHONDONTWRITEBYTECODE: "1"
            jobs:
              tests:
                runs-on: ubuntu-latest
                strategy:
                  matrix:
                    python-version: ["3.11"]
                steps:
                  - uses: actions/checkout@v4
                  - uses: actions/setup-python@v5
                    with:
                      python-version: ${{ matrix.python-version }}
                  - uses: actions/cache@v4
                    with:
                      path: ~/.cache/pip
                      key: pip
                  - name: Generate version module
                    run: python3 scripts/gen_version.py
                  - name: Run tests
                    run: python3 -m pytest -q tests
            """;

    @TempDir
    Path dir;
    Path repo;

    @BeforeEach
    void repository() throws Exception {
        repo = dir.resolve("slugify");
        write(".github/workflows/ci.yml", WORKFLOW);
        write("slug/__init__.py", "");
        write("slug/core.py", """
                import re

                from slug._version import VERSION


                def slugify(text):
                    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
                """);
        write("scripts/gen_version.py", """
                # CI generates this module before testing; without the setup step the tests cannot import.
                with open("slug/_version.py", "w") as f:
                    f.write("VERSION = '1.0'\\n")
                """);
        write("tests/test_core.py", """
                from slug.core import slugify


                def test_spaces():
                    assert slugify("Hello World") == "hello-world"


                def test_punctuation():
                    assert slugify("a, b!") == "a-b"
                """);
        git("init", "-q", "-b", "main");
        git("add", "-A");
        git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "initial");
    }

    @Test
    void derivedEnvironmentValidatesAndRunsItsRealTestSuite() throws Exception {
        Path manifest = dir.resolve("env.yaml");
        Result derive = cli("derive", "--repo", repo.toString(), "--commit", "HEAD", "--workflow", "ci.yml",
                "-o", manifest.toString());
        assertThat(derive.exit()).as(derive.err()).isZero();
        assertThat(Files.readString(manifest)).contains("gen_version.py").contains("pytest");

        Result validate = cli("validate", "-f", manifest.toString());
        assertThat(validate.exit()).as(validate.err()).isZero();

        JsonNode honest = runAgent(manifest, "true", "honest");
        assertThat(honest.path("phase").asText()).isEqualTo("Succeeded");
        assertThat(honest.path("reward").asDouble()).isEqualTo(1.0);
        assertThat(honest.path("tests").path("passed").asInt()).isEqualTo(2);

        JsonNode breaking = runAgent(manifest, "printf 'def slugify(text):\\n    return text\\n' > slug/core.py", "breaking");
        assertThat(breaking.path("reward").asDouble()).isEqualTo(0.0);
        assertThat(breaking.path("tests").path("failed").asInt()).isEqualTo(2);
    }

    private JsonNode runAgent(Path manifest, String agent, String name) throws IOException {
        Path out = dir.resolve("out-" + name);
        Result run = cli("run", "-f", manifest.toString(), "--agent-cmd", agent, "--out", out.toString());
        assertThat(run.exit()).as(run.out() + run.err()).isZero();
        try (var files = Files.walk(out)) {
            Path result = files.filter(p -> p.getFileName().toString().equals("result.json")).findFirst().orElseThrow();
            return new ObjectMapper().readTree(result.toFile());
        }
    }

    private void write(String path, String content) throws IOException {
        Path file = repo.resolve(path);
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
    }

    private void git(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("git", "-C", repo.toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("git " + String.join(" ", args) + " failed: " + output);
        }
    }
}
