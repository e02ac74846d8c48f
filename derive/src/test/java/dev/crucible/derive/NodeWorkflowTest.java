package dev.crucible.derive;

import static dev.crucible.derive.WorkflowFixtures.derive;
import static dev.crucible.derive.WorkflowFixtures.step;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** node.yml: GitHub's Node.js starter workflow plus a lint step. */
class NodeWorkflowTest {
    @TempDir
    Path repo;

    @Test
    void npmCiAndBuildAreSetupLintIsSeparateNpmTestIsTheVerifier() throws Exception {
        Derivation d = derive(repo, "node.yml");

        // the newest stable cell by default
        assertThat(d.matrix()).containsExactly(Map.entry("node-version", "22.x"));
        assertThat(d.matrixCombinations()).isEqualTo(3);
        assertThat(d.toolchains()).containsExactly(Map.entry("node", "22.x"));
        assertThat(d.steps()).extracting(StepReport::decision).containsExactly(Disposition.DROPPED,
                Disposition.TOOLCHAIN, Disposition.SETUP, Disposition.SETUP, Disposition.LINT, Disposition.TEST);
        assertThat(step(d, 2).name()).isEqualTo("Use Node.js 22.x");
        assertThat(d.setupScript()).containsSubsequence("# step 3 (line 27): npm ci", "npm ci",
                "# step 4 (line 28): npm run build --if-present", "npm run build --if-present");
        assertThat(d.verifier().command()).isEqualTo("NODE_OPTIONS=--max-old-space-size=4096 npm test");
        assertThat(d.verifier().type()).as("a wrapper: its runners are instrumented at grading").isEqualTo("test-suite");
        assertThat(d.lint().command()).isEqualTo("npm run lint");
        assertThat(d.manifest().at("/spec/additionalVerifiers/0/name").asText()).isEqualTo("lint");
        assertThat(d.manifest().at("/spec/additionalVerifiers/0/type").asText()).isEqualTo("execution");
        // CI=true keeps test runners such as jest out of watch mode, as on a GitHub runner.
        assertThat(d.env()).containsEntry("CI", "true");
    }

    @Test
    void otherNodeVersionByFlag() throws Exception {
        Derivation d = derive(repo, "node.yml", null, Map.of("node-version", "22.x"), null);

        assertThat(d.toolchains()).containsEntry("node", "22.x");
        assertThat(d.notes()).anyMatch(n -> n.contains("combination 3 of 3"));
    }
}
