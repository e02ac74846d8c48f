package dev.crucible.verifier.exec.container;

import static dev.crucible.verifier.support.TreeWritingRepo.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.crucible.verifier.Environment;
import dev.crucible.verifier.VerifyReport;
import dev.crucible.contract.DetectorNames;
import dev.crucible.verifier.support.Fixtures;
import dev.crucible.verifier.support.GradingContainerProcess;
import dev.crucible.verifier.support.TreeWritingRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A writable grading tree in the rollout pod's grading container (another uid; with and without a
 * per-command box): a build may write into the tree, the grader's test files can be neither rewritten
 * nor swapped for forged ones. Real node, the real grading runner.
 */
class GradingContainerTreeTest {
    @TempDir Path dir;

    @BeforeEach
    void needsContainerAndNode() {
        assumeTrue(GradingContainerProcess.unavailable().isEmpty(), () -> "needs " + GradingContainerProcess.unavailable().orElse(""));
        assumeTrue(TreeWritingRepo.nodeInstalled(), "needs node");
    }

    @ParameterizedTest(name = "box={0}")
    @ValueSource(booleans = {false, true})
    void aBuildMayWriteTheTree(boolean box) throws Exception {
        VerifyReport r = grade(box, FIXED + BUILDS);
        assertThat(r.reward()).as(r.reason() + " " + r.details()).isEqualTo(1.0);
        assertThat(r.hackFindings()).noneMatch(f -> f.detector().equals(DetectorNames.GRADER_TAMPERING));
    }

    @ParameterizedTest(name = "box={0}")
    @ValueSource(booleans = {false, true})
    void theGradersTestsCanBeNeitherRewrittenNorSwapped(boolean box) throws Exception {
        VerifyReport rewrite = grade(box, BUGGY + attack("fs.writeFileSync('test/b.test.js', forged);"));
        assertThat(rewrite.reward()).as(rewrite.reason() + " " + rewrite.details()).isEqualTo(0.0);
        assertThat(String.valueOf(rewrite.details())).contains(ORIGINAL_FAILS);

        VerifyReport swap = grade(box, BUGGY + attack("fs.renameSync('test', 'old'); fs.mkdirSync('test'); fs.writeFileSync('test/b.test.js', forged);"));
        assertThat(swap.reward()).as(swap.reason() + " " + swap.details()).isEqualTo(0.0);
        // without a box the sticky folders refuse the rename; in a box the folder moves and the check after the command voids the run
        if (!String.valueOf(swap.details()).contains(ORIGINAL_FAILS)) {
            assertThat(swap.hackFindings()).anySatisfy(f -> assertThat(f.evidence()).contains("removed or moved the grader's file test/"));
        }
    }

    private VerifyReport grade(boolean box, String lib) throws Exception {
        Path d = Files.createTempDirectory(dir, "g");
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
        Environment env = TreeWritingRepo.make(d.resolve("env"));
        Path workspace = env.workspacePath().orElseThrow();
        return ContainerEpisode.grade(d, env, workspace, box, ws -> Fixtures.write(ws.resolve("lib.js"), lib)).report();
    }
}
