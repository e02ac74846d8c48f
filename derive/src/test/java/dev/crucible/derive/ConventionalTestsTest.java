package dev.crucible.derive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 35 (fatedier/frp): CI builds images, lints and releases, and runs no tests, so derive refused. A repository
 * whose workflows run no tests gets its ecosystem's conventional test job, said so in the notes; one that holds no
 * tests is still refused. Real git repositories.
 */
class ConventionalTestsTest {
    @TempDir
    Path repo;

    private static final String LINT_ONLY = "on: push\njobs:\n  lint:\n    runs-on: ubuntu-latest\n    steps:\n"
            + "      - uses: actions/checkout@v4\n      - uses: golangci/golangci-lint-action@v6\n";

    @Test
    void aGoModuleWhoseCiRunsNoTestsGetsGoTestWithTheReason() throws Exception {
        write(".github/workflows/golangci-lint.yml", LINT_ONLY);
        write("go.mod", "module example.com/calc\n\ngo 1.22\n");
        write("calc.go", "package calc\n\nfunc Add(a, b int) int { return a + b }\n");
        commit();
        assertThatThrownBy(() -> WorkflowFinder.derive(repo, "HEAD", null)).as("no test files: nothing to run")
                .isInstanceOf(DerivationException.class).hasMessageContaining("no workflow runs tests");

        write("calc_test.go", "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {}\n");
        commit();
        Derivation d = WorkflowFinder.derive(repo, "HEAD", null);
        assertThat(d.verifier().name()).isEqualTo("tests");
        assertThat(d.verifier().command()).contains("go test ./...");
        assertThat(d.toolchains()).containsEntry("go", "1.22");
        assertThat(d.notes().get(0)).contains("no workflow at the commit runs tests").contains("go test ./...")
                .contains("golangci-lint.yml: only lints");
        assertThat(d.manifestYaml()).contains("no workflow at the commit runs tests");
        assertThat(d.workflowPath()).as("spec.source.workflow names a YAML file").matches("^[^/].*\\.ya?ml$");
    }

    @Test
    void aPythonProjectGetsTheTestDependenciesItDeclares() throws Exception {
        // browser-use: addopts --dist=loadscope needs pytest-xdist from [tool.uv] dev-dependencies; `pip install -e . pytest`
        // left it out and pytest stopped with a usage error (exit 4)
        write(".github/workflows/golangci-lint.yml", LINT_ONLY);
        write("pyproject.toml", """
                [project]
                name = "calc"
                dependencies = ["attrs"]

                [project.optional-dependencies]
                aws = ["boto3==1.42.37"]
                testing = [
                    "hypothesis>=6",  # property tests
                ]

                [tool.pytest.ini_options]
                addopts = "-svx --dist=loadscope"

                [tool.uv]
                dev-dependencies = [
                    "ruff==0.14.14",
                    # "pytest-playwright-asyncio>=0.7.0",  # commented out
                    "pytest-xdist==3.8.0",
                    'pytest-timeout==2.4.0',
                ]
                """);
        write("tests/test_calc.py", "def test_ok():\n    assert True\n");
        commit();
        Derivation d = WorkflowFinder.derive(repo, "HEAD", null);
        assertThat(d.setupScript()).contains("pip install -e '.[testing]' pytest\n")
                .contains("pip install 'ruff==0.14.14' 'pytest-xdist==3.8.0' 'pytest-timeout==2.4.0'\n")
                .doesNotContain("playwright", "boto3", "--group");
        assertThat(d.verifier().command()).contains("python -m pytest");

        write("pyproject.toml", "[project]\nname = \"calc\"\n\n[dependency-groups]\ndev = [{include-group = \"test\"}, \"ruff\"]\ntest = [\"pytest-xdist\"]\n");
        commit();
        String setup = WorkflowFinder.derive(repo, "HEAD", null).setupScript();
        assertThat(setup).contains("pip install -e . pytest\n", "pip install --group test\n").contains("'pip>=25.1'");
    }

    @Test
    void aPackageJsonWithOnlyNpmsPlaceholderTestScriptIsNoTestJob() {
        assertThat(ConventionalTests.hasTestScript("{\"scripts\":{\"test\":\"echo \\\"Error: no test specified\\\" && exit 1\"}}")).isFalse();
        assertThat(ConventionalTests.hasTestScript("{\"scripts\":{\"test\":\"mocha\"}}")).isTrue();
        assertThat(ConventionalTests.hasTestScript("not json")).isFalse();
    }

    private void write(String name, String text) throws IOException {
        Path f = repo.resolve(name);
        Files.createDirectories(f.getParent());
        Files.writeString(f, text);
    }

    private void commit() throws Exception {
        if (!Files.exists(repo.resolve(".git"))) git("init", "-q", "-b", "main");
        git("add", "-A");
        git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "change");
    }

    private void git(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("git", "-C", repo.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
    }
}
