package dev.crucible.derive;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * tauri's test step ({@code cd ./packages/cli}, {@code pnpm i --frozen-lockfile}, {@code pnpm build}, {@code pnpm test})
 * ran its install in grading, which has no network. The install runs in setup inside the step's folder; the cd and the
 * build stay in the test command, so grading builds the agent's code. A step with a generator before its install is
 * left as it is.
 */
class InstallsAmongTestLinesTest {
    @TempDir
    Path repo;

    private Derivation derive(String script) throws Exception {
        Files.createDirectories(repo.resolve("packages/cli"));
        Files.writeString(repo.resolve("packages/cli/package.json"), "{\"scripts\":{\"build\":\"tsc\",\"test\":\"vitest run\"}}");
        String text = "on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n"
                + "      - uses: actions/setup-node@v4\n        with:\n          node-version: 20\n"
                + "      - name: test\n        run: |\n" + script.lines().map(l -> "          " + l + "\n").reduce("", String::concat);
        return WorkflowFixtures.fromText(repo, ".github/workflows/test.yml", text);
    }

    @Test
    void installLinesAmongCdAndBuildRunInSetupInTheStepsFolder() throws Exception {
        Derivation d = derive("cd ./packages/cli\nnpm ci\nnpm run build\nnpm test\n");
        assertThat(d.setupScript()).contains("(cd ./packages/cli && npm ci)");
        assertThat(d.verifier().command()).contains("cd ./packages/cli").contains("npm run build").contains("npm test")
                .doesNotContain("npm ci");
    }

    @Test
    void aGeneratorBeforeTheInstallKeepsTheStepAsItIs() throws Exception {
        Derivation d = derive("cd ./packages/cli\nnode gen.js\nnpm ci\nnpm test\n");
        assertThat(d.setupScript()).doesNotContain("npm ci");
        assertThat(d.verifier().command()).contains("node gen.js").contains("npm ci");
    }

    /** black: an export first, then installs between pytest runs; grading is offline, so every install goes to setup. */
    @Test
    void installsBetweenTestRunsGoToSetupAfterTheExports() throws Exception {
        Derivation d = derive("export PYTHONWARNDEFAULTENCODING=1\npip install -e .[d]\npytest tests -m 'not jupyter'\n"
                + "pip install -e .[jupyter]\npytest tests -m jupyter\n");
        assertThat(d.verifier().command()).contains("export PYTHONWARNDEFAULTENCODING=1").contains("tests -m 'not jupyter'")
                .contains("tests -m jupyter").doesNotContain("pip install");
        String setup = d.setupScript();
        assertThat(setup).contains("pip install -e .[d]").contains("pip install -e .[jupyter]");
        assertThat(setup.indexOf("export PYTHONWARNDEFAULTENCODING=1")).isLessThan(setup.indexOf("pip install -e .[d]"));
    }

    @Test
    void aStepWithOtherCommandsAmongItsInstallsIsLeftAsItIs() throws Exception {
        Derivation d = derive("export A=1\npip install -e .\npython gen.py\npytest tests\npip install x\npytest more\n");
        assertThat(d.verifier().command()).contains("python gen.py").contains("pip install x");
    }
}
