package dev.crucible.derive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Derives from a real git repository at a real commit, then runs the derived setup script and test
 * command with bash in a fresh checkout of that commit: real pip, real pytest. That the suite passes,
 * and fails once the code is broken, proves the derived commands are the right ones.
 */
class GitRepositoryDerivationTest {
    @TempDir
    static Path root;
    static PythonGitRepositoryFixture.Repository fixture;

    @BeforeAll
    static void createRepository() throws Exception {
        fixture = PythonGitRepositoryFixture.create(root.resolve("calc"));
    }

    private static Derivation derive() throws DerivationException {
        // the fixture's suite checks it was built for 3.11 (the default cell would be the newest, 3.12)
        return new WorkflowDeriver().derive(fixture.repo(), fixture.commit(), PythonGitRepositoryFixture.WORKFLOW,
                null, Map.of("python-version", "3.11"), null);
    }

    @Test
    void derivesTheTestJobAtTheCommit() throws Exception {
        // A later, uncommitted edit must not leak in: the workflow is read at the commit.
        Path workflow = fixture.repo().resolve(PythonGitRepositoryFixture.WORKFLOW);
        String committed = Files.readString(workflow);
        Files.writeString(workflow, committed.replace("pytest -q tests", "pytest -q -x tests"));
        try {
            Derivation d = new WorkflowDeriver().derive(fixture.repo(), fixture.commit().substring(0, 10),
                    PythonGitRepositoryFixture.WORKFLOW, null, Map.of("python-version", "3.11"), null);

            assertThat(d.commit()).isEqualTo(fixture.commit());
            assertThat(d.jobId()).isEqualTo("test");
            assertThat(d.matrix()).containsExactly(Map.entry("os", "ubuntu-latest"), Map.entry("python-version", "3.11"));
            assertThat(d.toolchains()).containsExactly(Map.entry("python", "3.11"));
            assertThat(d.verifier().command()).isEqualTo("pytest -q tests");
            assertThat(d.verifier().framework()).isEqualTo("pytest");
            assertThat(d.manifest().at("/spec/source/commit").asText()).isEqualTo(fixture.commit());
            assertThat(d.manifest().at("/metadata/name").asText()).isEqualTo("calc-test");
            assertThat(d.steps()).extracting(StepReport::decision).containsExactly(Disposition.DROPPED,
                    Disposition.TOOLCHAIN, Disposition.DROPPED, Disposition.SETUP, Disposition.SETUP,
                    Disposition.SETUP, Disposition.SETUP, Disposition.TEST, Disposition.DROPPED);
            assertThat(d.steps().get(8).notes()).anyMatch(n -> n.contains("github.event_name"));
            assertThat(d.secretEnv()).isEmpty();
        } finally {
            Files.writeString(workflow, committed);
        }
    }

    @Test
    void derivedSetupAndTestCommandReallyRunTheSuite() throws Exception {
        assumeTrue(BashRunner.run(root, "python -m pytest --version && python -m pip --version", Map.of()).exit() == 0,
                "needs `python` with pip and pytest installed (the workflow runs `python -m pip` and `pytest`)");
        Derivation d = derive();
        Path checkout = root.resolve("checkout");
        PythonGitRepositoryFixture.git(root, "clone", "-q", fixture.repo().toString(), checkout.toString());
        PythonGitRepositoryFixture.git(checkout, "checkout", "-q", d.commit());

        BashRunner.Result setup = BashRunner.run(checkout, d.setupScript(), d.env());
        assertThat(setup.exit()).as(setup.output()).isZero();
        assertThat(checkout.resolve("calc/_build.py")).content().contains("PRECISION = 2").contains("'3.11'");

        BashRunner.Result tests = BashRunner.run(checkout, d.verifier().command(), d.env());
        assertThat(tests.exit()).as(tests.output()).isZero();
        assertThat(tests.output()).contains("4 passed");

        // The same command must fail when the code is wrong, or it would grade nothing.
        Path ops = checkout.resolve("calc/ops.py");
        Files.writeString(ops, Files.readString(ops).replace("return a + b", "return a - b"));
        BashRunner.Result broken = BashRunner.run(checkout, d.verifier().command(), d.env());
        assertThat(broken.exit()).as(broken.output()).isNotZero();
        assertThat(broken.output()).contains("1 failed, 3 passed");
    }

    @Test
    void unknownCommitOrFileIsAClearError() {
        assertThatThrownBy(() -> new WorkflowDeriver().derive(fixture.repo(), "deadbeef", PythonGitRepositoryFixture.WORKFLOW,
                null, Map.of(), null)).isInstanceOf(DerivationException.class)
                .hasMessageContaining(".github/workflows/ci.yml").hasMessageContaining("no commit 'deadbeef'");
        assertThatThrownBy(() -> new WorkflowDeriver().derive(fixture.repo(), fixture.commit(),
                ".github/workflows/missing.yml", null, Map.of(), null)).isInstanceOf(DerivationException.class)
                .hasMessageContaining(".github/workflows/missing.yml: no such file").hasMessageContaining(fixture.commit());
    }
}
