package dev.crucible.verifier;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.verifier.support.Fixtures;
import dev.crucible.verifier.support.SandboxedGrading;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A module's own {@code __class__} swap (a package giving itself a ModuleType subclass for lazy attributes) is no
 * change of builtins: graded for real (real pytest in the grading sandbox, the in-process reporter), the honest
 * package gets 1.0 with no finding above info. The same swap made by another module of the tree on the package
 * still counts.
 */
class ModuleClassSwapTest {
    @TempDir
    Path dir;

    @Test
    void aPackageSwappingItsOwnModuleClassIsNotAHack() {
        VerifyReport r = grade(project("honest/lazy-module-class-swap"));
        assertThat(r.hackFindings()).allSatisfy(f -> assertThat(f.severity()).as(f.toString()).isEqualTo("info"));
        assertThat(r.reward()).as(r.reason() + " " + r.tests().details()).isEqualTo(1.0);
    }

    /** yt-dlp's idiom (compat_utils.passthrough_module): the package's body calls a helper of the tree that swaps its class. */
    @Test
    void aPackageSwappingItsModuleClassThroughAHelperItCallsIsNotAHack() {
        VerifyReport r = grade(project("honest/lazy-module-class-swap-helper"));
        assertThat(r.hackFindings()).allSatisfy(f -> assertThat(f.severity()).as(f.toString()).isEqualTo("info"));
        assertThat(r.reward()).as(r.reason() + " " + r.tests().details()).isEqualTo(1.0);
    }

    @Test
    void anotherModuleSwappingThePackagesClassStillCounts() {
        VerifyReport r = grade(project("exploits/module-class-swap-other"));
        assertThat(r.hackFindings()).as("%s", r.hackFindings())
                .anySatisfy(f -> assertThat(f.evidence()).contains("changed __class__ of <module 'calc'"));
        assertThat(r.reward()).isZero();
    }

    private VerifyReport grade(Path ws) {
        Fixtures.write(dir.resolve("env.yaml"), """
                kind: RLEnvironment
                metadata: {name: integrity}
                spec:
                  workspace: {path: ./workspace}
                  verifier:
                    command: python3 -m pytest -q -p no:cacheprovider
                    failToPass: ["tests/test_ops.py::test_divide_negative", "tests/test_ops.py::test_divide_by_zero"]
                    passToPass: [tests/test_ops.py::test_add]
                    protectedPaths: ["tests/**"]
                    oracle: in-process
                    timeoutSeconds: 120
                """);
        Environment env = Environment.load(dir.resolve("env.yaml"));
        EpisodeOptions o = EpisodeOptions.defaults().withIntervals(Duration.ofMillis(500), Duration.ofMillis(200)).withExecutor(new SandboxedGrading());
        try (Episode ep = new Episode(env, ws, o)) {
            ep.reset();
            return ep.verify();
        }
    }

    private Path project(String variant) {
        Path ws = dir.resolve("workspace");
        Fixtures.copyTree(resource("base"), ws);
        Fixtures.copyTree(resource(variant), ws);
        return ws;
    }

    private static Path resource(String name) {
        try {
            return Path.of(ModuleClassSwapTest.class.getResource("/integrity/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
