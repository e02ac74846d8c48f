package dev.crucible.controllers.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.api.v1alpha1.environment.SourceSpec;
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

/** The operator's derivation from spec.source: a local repository, a git URL fetched by commit, and errors. */
class SourceDerivationTest {

    @TempDir
    Path dir;
    Path repo;
    String commit;

    @BeforeEach
    void repository() throws Exception {
        repo = dir.resolve("upstream");
        Files.createDirectories(repo.resolve(".github/workflows"));
        Files.writeString(repo.resolve(".github/workflows/ci.yml"), """
                name: CI
                on: push
                jobs:
                  test:
                    runs-on: ubuntu-latest
                    steps:
                      - uses: actions/checkout@v4
                      - uses: actions/setup-python@v5
                        with: {python-version: "3.12"}
                      - run: pip install -e .
                      - run: pytest -q
                """);
        git(repo, "init", "-q", "-b", "main");
        git(repo, "add", "-A");
        git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "ci");
        git(repo, "config", "uploadpack.allowAnySHA1InWant", "true");
        commit = git(repo, "rev-parse", "HEAD").strip();
    }

    private SourceSpec source(String url, String c, String workflow) {
        SourceSpec s = new SourceSpec();
        s.repo = url;
        s.commit = c;
        s.workflow = workflow;
        return s;
    }

    @Test
    void localRepositoryIsDerivedIntoStatus() {
        SourceDerivation.Result r = new SourceDerivation(dir.resolve("cache")).derive(source(repo.toString(), commit, ".github/workflows/ci.yml"));
        assertThat(r.error()).isNull();
        assertThat(r.status().job).isEqualTo("test");
        assertThat(r.status().testCommand).contains("pytest -q");
        assertThat(r.status().setupScript).contains("pip install -e .");
        assertThat(r.status().toolchains).containsEntry("python", "3.12");
        assertThat(r.status().steps).extracting(s -> s.decision).contains("test", "dropped");
        assertThat(r.summary()).contains("job 'test'");
    }

    @Test
    void gitUrlIsFetchedAtTheCommitIntoTheCache() {
        SourceDerivation.Result r = new SourceDerivation(dir.resolve("cache"))
                .derive(source("file://" + repo, commit, ".github/workflows/ci.yml"));
        assertThat(r.error()).isNull();
        assertThat(r.status().testCommand).contains("pytest -q");
        try (var files = Files.list(dir.resolve("cache"))) {
            assertThat(files.count()).isEqualTo(1);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void errorsNameTheFieldOrTheFileAndLine() {
        SourceDerivation d = new SourceDerivation(dir.resolve("cache"));
        assertThat(d.derive(source("file://" + repo, commit.substring(0, 7), ".github/workflows/ci.yml")).error())
                .startsWith("spec.source.commit:");
        assertThat(d.derive(source(repo.toString(), commit, ".github/workflows/missing.yml")).error())
                .contains("missing.yml");
        assertThat(d.derive(source("file://" + dir.resolve("nowhere"), "0".repeat(40), ".github/workflows/ci.yml")).error())
                .startsWith(GitFetcher.TRANSIENT);
        assertThat(d.derive(source(repo.toString(), commit, null))).isNull();
    }

    private static String git(Path dir, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("git", "-C", dir.toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("git failed: " + out);
        }
        return out;
    }
}
