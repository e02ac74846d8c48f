package dev.crucible.derive;

import static dev.crucible.derive.WorkflowFixtures.derive;
import static dev.crucible.derive.WorkflowFixtures.step;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** composite-action.yml: install steps kept in a local composite action (./.github/actions/setup-project). */
class CompositeActionTest {
    @TempDir
    Path repo;

    @BeforeEach
    void actionInTheRepository() {
        WorkflowFixtures.repository(repo);
    }

    @Test
    void compositeActionIsInlinedWithItsInputs() throws Exception {
        Derivation d = derive(repo, "composite-action.yml");

        StepReport setup = step(d, 2);
        assertThat(setup.decision()).isEqualTo(Disposition.SETUP);
        assertThat(setup.reason()).contains("local composite action ./.github/actions/setup-project inlined")
                .contains("needs python 3.11");
        // setup-python inside the composite, with the caller's input, is the job's toolchain.
        assertThat(d.toolchains()).containsExactly(Map.entry("python", "3.11"));
        assertThat(d.setupScript()).contains("# .github/actions/setup-project/action.yml:28 (Record the install)")
                .contains("export EXTRAS=test").contains("echo \"extras=$EXTRAS python=3.11\" > installed.txt");
        assertThat(setup.notes()).anyMatch(n -> n.contains("Cache pip") && n.contains("caching"))
                .anyMatch(n -> n.contains("Windows toolchain") && n.contains("skipped"));
        assertThat(d.verifier().command()).isEqualTo("python -m pytest -q");
    }

    @Test
    void aSecretPassedAsAnInputIsNotCopied() throws Exception {
        Derivation d = derive(repo, "composite-action.yml");

        assertThat(d.setupScript()).doesNotContain("INDEX_TOKEN='");
        assertThat(d.secretEnv()).contains("INDEX_TOKEN");
        assertThat(step(d, 2).notes()).anyMatch(n -> n.contains("input token comes from secrets.INDEX_TOKEN"));
    }

    @Test
    void missingLocalActionIsReported() throws Exception {
        Derivation d = derive(repo, "composite-action.yml");

        StepReport missing = step(d, 3);
        assertThat(missing.decision()).isEqualTo(Disposition.DROPPED);
        assertThat(missing.notes()).anyMatch(n -> n.contains("no action.yml in .github/actions/missing"));
    }

    @Test
    void inlinedStepsRunAsOnGitHub() throws Exception {
        Derivation d = derive(repo, "composite-action.yml");

        BashRunner.Result r = BashRunner.run(repo, d.setupScript(), d.env());

        assertThat(r.exit()).as(r.output() + "\n---\n" + d.setupScript()).isZero();
        assertThat(repo.resolve("installed.txt")).hasContent("extras=test python=3.11");
        assertThat(repo.resolve("marker-copy.txt")).hasContent("from the action directory");
        assertThat(repo.resolve("index.txt")).hasContent("configured");
    }
}
