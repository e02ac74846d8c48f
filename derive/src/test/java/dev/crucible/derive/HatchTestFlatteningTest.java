package dev.crucible.derive;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 35.3: {@code hatch test} (microsoft/markitdown's CI: {@code cd packages/markitdown; hatch test}) builds its
 * environment when the tests run, which grading cannot do; derive installs that environment in setup and grades the
 * pytest command hatch would run, per test.
 */
class HatchTestFlatteningTest {
    @TempDir
    Path repo;

    private Derivation derive(String run) throws DerivationException {
        return WorkflowFixtures.fromText(repo, "ci.yml", """
                on: push
                jobs:
                  tests:
                    runs-on: ubuntu-latest
                    steps:
                      - uses: actions/checkout@v4
                      - uses: actions/setup-python@v5
                        with:
                          python-version: "3.12"
                      - run: pipx install hatch
                      - run: %s
                """.formatted(run));
    }

    private void write(String path, String text) {
        WorkflowFixtures.write(repo, path, text);
    }

    @Test
    void markitdownsHatchTestBecomesPytestWithTheEnvironmentInstalledInSetup() throws Exception {
        write("packages/markitdown/pyproject.toml", """
                [project]
                name = "markitdown"
                version = "1"

                [project.optional-dependencies]
                all = ["mammoth"]

                [tool.hatch.envs.hatch-test]
                features = ["all"]
                extra-dependencies = ["openai"]
                """);
        Derivation d = derive("cd packages/markitdown; hatch test");
        assertThat(d.verifier().command()).isEqualTo("cd packages/markitdown && python -m pytest -p no:randomly tests");
        assertThat(d.verifier().framework()).isEqualTo("pytest"); // per test, not one execution
        assertThat(d.setupScript()).contains("cd packages/markitdown\npython -m pip install 'pytest~=8.1' 'pytest-mock~=3.12'")
                .contains("openai\npython -m pip install -e '.[all]'\n)");
        assertThat(String.join("\n", d.notes())).contains("`hatch test` is flattened");
        assertThat(d.toolchains()).containsOnlyKeys("python"); // pipx install hatch: nothing runs hatch now
        assertThat(d.steps().get(2).decision()).isEqualTo(Disposition.DROPPED);
    }

    @Test
    void theProjectsOwnSettingsAndArgumentsAreHatchs() throws Exception {
        write("hatch.toml", """
                [envs.hatch-test]
                dependencies = ["pytest", "pytest-asyncio"]
                skip-install = true
                extra-args = ["-vv"]
                default-args = ["src/tests"]
                randomize = true

                [envs.hatch-test.env-vars]
                DEMO_MODE = "1"
                """);
        write("pyproject.toml", "[project]\nname = \"demo\"\nversion = \"1\"\n");
        Derivation d = derive("hatch test --parallel --retries 2 -py 3.12");
        // the step's env rides along; hatch's -n logical is left to grading's own worker count (XdistWorkers)
        assertThat(d.verifier().command()).isEqualTo("DEMO_MODE=1 python -m pytest -vv -r aR --reruns 2 src/tests");
        assertThat(d.verifier().command()).doesNotContain("no:randomly");
        assertThat(d.setupScript()).contains("python -m pip install pytest pytest-asyncio").doesNotContain("pip install -e");

        Derivation args = derive("hatch test -k fast tests/unit");
        assertThat(args.verifier().command()).isEqualTo("DEMO_MODE=1 python -m pytest -vv -k fast tests/unit"); // randomize = true: pytest-randomly stays on
    }

    @Test
    void whatHatchWouldReadDifferentlyStaysHatch() throws Exception {
        write("pyproject.toml", """
                [project]
                name = "demo"
                version = "1"

                [tool.hatch.envs.hatch-test]
                extra-dependencies = ["demo-plugin @ {root:uri}/plugin"]
                """);
        Derivation kept = derive("hatch test");
        assertThat(kept.verifier().command()).isEqualTo("hatch test");
        assertThat(kept.toolchains()).containsKey("hatch");
        assertThat(derive("hatch test --show").verifier().command()).isEqualTo("hatch test --show");
    }
}
