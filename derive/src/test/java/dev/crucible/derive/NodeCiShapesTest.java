package dev.crucible.derive;

import static dev.crucible.derive.WorkflowFixtures.derive;
import static dev.crucible.derive.WorkflowFixtures.step;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The jshttp style: node through nvm in a run step, tests through an npm script wrapped in nyc. */
class NodeCiShapesTest {
    @TempDir
    Path repo;

    @Test
    void nvmStepIsANodeToolchainAndNycLeavesTheTestCommand() throws Exception {
        Files.writeString(repo.resolve("package.json"), """
                {"scripts": {"test": "mocha --reporter spec test/", "test-ci": "nyc --reporter=lcov --reporter text npm test"}}
                """);
        Derivation d = derive(repo, "node-nvm.yml");

        assertThat(d.toolchains()).containsExactly(Map.entry("node", "20"));
        assertThat(step(d, 2).decision()).isEqualTo(Disposition.TOOLCHAIN);
        assertThat(d.setupScript()).doesNotContain("nvm");
        // nyc would write .nyc_output into the read-only grading tree; npm test runs mocha, graded per test.
        assertThat(d.verifier().command()).isEqualTo("npm test");
        assertThat(d.verifier().type()).isEqualTo("test-suite");
        assertThat(step(d, 4).notes()).anyMatch(n -> n.contains("nyc"));
    }

    @Test
    void anIfBetweenCoverageAndPlainTestsBecomesThePlainTests() throws Exception {
        Files.writeString(repo.resolve("package.json"), """
                {"scripts": {"test": "mocha --reporter spec", "test-ci": "nyc --reporter=lcov --reporter=text npm test"}}
                """);
        Derivation d = derive(repo, "node-nyc-if.yml");

        assertThat(d.verifier().command()).isEqualTo("npm test");
        assertThat(d.verifier().type()).isEqualTo("test-suite");
        assertThat(step(d, 4).notes()).anyMatch(n -> n.contains("now run the same tests"));
    }

    @Test
    void tsScriptsTestIsWrittenOutWithVitestLast() throws Exception {
        Files.writeString(repo.resolve("package.json"), """
                {"scripts": {"test": "ts-scripts test && npm run size", "size": "size-limit"},
                 "ts-scripts": {"dist": ["dist"], "project": ["tsconfig.build.json"]}}
                """);
        Derivation d = derive(repo, "node-ts-scripts.yml");

        assertThat(d.verifier().type()).isEqualTo("test-suite");
        assertThat(d.verifier().command().strip()).endsWith(
                "ts-scripts build --no-clean && ts-scripts check && npm run size && vitest run --passWithNoTests");
        assertThat(d.verifier().command()).contains("node_modules/.bin").doesNotContain("--coverage");
        assertThat(step(d, 4).notes()).anyMatch(n -> n.contains("ts-scripts test is build, check, then vitest"));

        // one test config: its --config and --dir go to vitest
        Files.writeString(repo.resolve("package.json"), """
                {"scripts": {"test": "ts-scripts test"}, "ts-scripts": {"test": [{"dir": "src", "config": "vitest.config.mts"}]}}
                """);
        assertThat(derive(repo, "node-ts-scripts.yml").verifier().command().strip())
                .endsWith("ts-scripts build --no-clean && ts-scripts check && vitest run --config vitest.config.mts --dir src --passWithNoTests");
    }

    @Test
    void tsScriptsWithSeveralTestConfigsStaysOneScript() throws Exception {
        Files.writeString(repo.resolve("package.json"), """
                {"scripts": {"test": "ts-scripts test"}, "ts-scripts": {"test": [{"dir": "a"}, {"dir": "b"}]}}
                """);
        Derivation d = derive(repo, "node-ts-scripts.yml");
        assertThat(d.verifier().command()).isEqualTo("npm test");
        assertThat(d.verifier().type()).as("the script's vitest runs are instrumented at grading").isEqualTo("test-suite");
        Files.writeString(repo.resolve("package.json"), """
                {"scripts": {"test": "ts-scripts test; echo done"}}
                """);
        assertThat(derive(repo, "node-ts-scripts.yml").verifier().type()).isEqualTo("test-suite");
    }

    @Test
    void coverageOnlyScriptsAreRecognised() {
        assertThat(NodeScripts.withoutCoverage("nyc --reporter=lcov --reporter text npm test")).isEqualTo("npm test");
        assertThat(NodeScripts.withoutCoverage("c8 -r lcov mocha")).isEqualTo("mocha");
        assertThat(NodeScripts.withoutCoverage("nyc report --reporter=lcov")).isNull();
        assertThat(NodeScripts.withoutCoverage("mocha && nyc npm test")).isNull();
    }
}
