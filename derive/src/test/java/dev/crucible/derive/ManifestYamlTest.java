package dev.crucible.derive;

import static dev.crucible.derive.WorkflowFixtures.derive;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The printed manifest reads back as the same tree; the report is in comments and in JSON. */
class ManifestYamlTest {
    @TempDir
    Path repo;

    @Test
    void printedManifestReadsBackAsTheSameTree() throws Exception {
        Derivation d = derive(WorkflowFixtures.repository(repo), "monorepo.yml");
        JsonNode read = new YAMLMapper().readTree(d.manifestYaml());

        assertThat(read).isEqualTo(d.manifest());
        assertThat(read.at("/apiVersion").asText()).isEqualTo("crucible.dev/v1alpha1");
        assertThat(read.at("/kind").asText()).isEqualTo("RLEnvironment");
        // "3.11" must stay a string, not become the number 3.11 (or 3.1 for "3.10").
        assertThat(read.at("/spec/setup/toolchains/python").isTextual()).isTrue();
        assertThat(read.at("/spec/workspace/path").asText()).isEqualTo(repo.toAbsolutePath().toString());
        assertThat(read.at("/spec/source/repo").asText()).isEqualTo(repo.toAbsolutePath().toString());
        assertThat(read.at("/spec/source/workflow").asText()).isEqualTo(".github/workflows/monorepo.yml");
        assertThat(read.at("/spec/source/job").asText()).isEqualTo("backend");
        assertThat(read.at("/spec/verifier/rewardMode").asText()).isEqualTo("binary");
        assertThat(read.at("/spec/tools")).hasSize(5);
        assertThat(read.at("/metadata/name").asText()).matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    }

    @Test
    void headerCommentsCarryTheStepReport() throws Exception {
        Derivation d = derive(repo, "python-tox-matrix.yml", null, Map.of("python-version", "3.9"), null);
        String yaml = d.manifestYaml();

        assertThat(yaml).startsWith("# Derived by `crucible derive` from .github/workflows/python-tox-matrix.yml, "
                + "job 'test' (line 18) (working tree).\n");
        assertThat(yaml).contains("# matrix: os=ubuntu-latest, python-version=3.9 (one of 12 combinations");
        assertThat(yaml).contains("#   5. line 62 'Test with tox': test - runs the tests (tox)");
        assertThat(yaml).contains("#   4. line 58 'Install Windows build tools': dropped - if:");
        assertThat(yaml).contains("  # Placeholder: replace this prompt with the task the agent should do.\n  task:\n");
        assertThat(yaml).contains("    script: |\n");
    }

    @Test
    void reportJsonListsEveryStep() throws Exception {
        Derivation d = derive(repo, "secrets.yml");
        JsonNode report = new ObjectMapper().readTree(d.reportJson());

        assertThat(report.at("/workflow").asText()).isEqualTo(".github/workflows/secrets.yml");
        assertThat(report.at("/job").asText()).isEqualTo("test");
        assertThat(report.at("/steps")).hasSize(7);
        assertThat(report.at("/steps/4/decision").asText()).isEqualTo("test");
        assertThat(report.at("/steps/4/line").asInt()).isEqualTo(27);
        assertThat(report.at("/steps/6/reason").asText()).contains("twine upload");
        assertThat(report.at("/secretEnv")).hasSize(5);
        assertThat(report.at("/verifier/command").asText()).contains("pytest");
    }

    @Test
    void summaryForStatusAndEvents() throws Exception {
        Derivation d = derive(repo, "node.yml");

        assertThat(d.summary()).isEqualTo("job 'build' node-version=22.x: 2 setup, 1 test, 1 lint, 1 dropped step(s); "
                + "verifier: NODE_OPTIONS=--max-old-space-size=4096 npm test");
    }

    @Test
    void statusTreeHasTheShapeOfTheDerivedStatus() throws Exception {
        Derivation d = derive(repo, "node.yml");
        JsonNode status = d.statusTree();

        assertThat(status.at("/workflow").asText()).isEqualTo(".github/workflows/node.yml");
        assertThat(status.at("/job").asText()).isEqualTo("build");
        assertThat(status.at("/matrix/node-version").asText()).isEqualTo("22.x");
        assertThat(status.at("/testCommand").asText()).isEqualTo(d.verifier().command());
        assertThat(status.at("/toolchains/node").asText()).isEqualTo("22.x");
        assertThat(status.at("/steps/5/index").asInt()).isEqualTo(6);
        assertThat(status.at("/steps/5/decision").asText()).isEqualTo("test");
        assertThat(status.at("/steps/5/line").asInt()).isEqualTo(30);
        assertThat(status.at("/steps/1/decision").asText()).isEqualTo("toolchain");
    }

    @Test
    void actionsPinnedToACommitAreShownShort() {
        WorkflowStep s = new WorkflowStep(1, 1, null, null, null,
                "actions/checkout@b4ffde65f46336ab88eb53be808477a3936bae11", java.util.Map.of(), null, 0, null, null,
                java.util.Map.of(), null, null);
        assertThat(s.label()).isEqualTo("actions/checkout@b4ffde6");
    }

    @Test
    void expressionsThatResolveToNothingLeaveNoTrailingBlanks() throws Exception {
        String workflow = """
                on: push
                env:
                  FLAGS:
                jobs:
                  t:
                    runs-on: ubuntu-latest
                    steps:
                      - run: cargo fetch ${{ env.FLAGS }}
                      - run: cargo test ${{ env.FLAGS }}
                """;
        Derivation d = new WorkflowDeriver().deriveFromText(
                new DerivationRequest(repo, null, "ci.yml", null, java.util.Map.of(), null), workflow);

        assertThat(d.verifier().command()).isEqualTo("cargo test");
        assertThat(d.setupScript()).contains("\ncargo fetch\n");
        assertThat(d.manifestYaml()).contains("    command: cargo test\n").contains("    script: |\n");
    }

    @Test
    void namesAreDns1123() {
        assertThat(DnsNames.of("My_Repo.git", "Build & Test")).isEqualTo("my-repo-git-build-test");
        assertThat(DnsNames.of("---", null)).isEqualTo("derived");
        assertThat(DnsNames.of("a".repeat(80), "job")).hasSize(63);
    }
}
