package dev.crucible.verifier.pristine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.verifier.Environment;
import dev.crucible.verifier.Episode;
import dev.crucible.verifier.EpisodeOptions;
import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.sandbox.Box;
import dev.crucible.verifier.sandbox.BoxLimits;
import dev.crucible.verifier.sandbox.GradingSandbox;
import dev.crucible.verifier.support.Fixtures;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Links a repository commits, checked out by git as CI has them: kept as links in the pristine
 * snapshot and the grading tree when they stay inside the tree, refused with the path and the reason
 * when they lead out, and checked like any protected file.
 */
class CommittedLinksTest {
    @TempDir
    Path dir;
    Path ws;
    Path secret;
    ProtectedPaths protectedPaths = new ProtectedPaths(List.of("tests/**"));
    static final String FIX = "def add(a, b):\n    return a + b\n\n\ndef subtract(a, b):\n    return a - b\n\n\n"
            + "def divide(a, b):\n    if b == 0:\n        raise ValueError(\"division by zero\")\n    return a / b\n";

    @BeforeEach
    void repository() throws Exception {
        secret = Files.writeString(dir.resolve("secret.txt"), "host secret\n");
        Path repo = dir.resolve("repo");
        Fixtures.write(repo.resolve("calc/ops.py"), "def add(a, b):\n    return a + b\n");
        Fixtures.write(repo.resolve("tests/test_ops.py"), "from calc.ops import add\n\ndef test_add():\n    assert add(1, 2) == 3\n");
        Fixtures.write(repo.resolve("fixtures/data.json"), "{\"n\": 3}\n");
        Fixtures.write(repo.resolve("docs/README.md"), "the readme\n");
        Files.createSymbolicLink(repo.resolve("README.md"), Path.of("docs/README.md"));
        Files.createSymbolicLink(repo.resolve("tests/data.json"), Path.of("../fixtures/data.json")); // a protected link to a file
        Files.createSymbolicLink(repo.resolve("tests/fixtures"), Path.of("../fixtures")); // a protected link to a folder
        Files.createSymbolicLink(repo.resolve("tests/host"), Path.of("../../secret.txt")); // leads out once checked out beside secret.txt
        Files.createSymbolicLink(repo.resolve("calc/abs_link"), secret);
        Fixtures.git(repo, "init", "-q");
        Fixtures.git(repo, "add", "-A");
        Fixtures.git(repo, "commit", "-q", "-m", "with links");
        ws = dir.resolve("ws");
        Fixtures.git(dir, "clone", "-q", repo.toString(), ws.toString());
        assertThat(Files.isSymbolicLink(ws.resolve("tests/data.json"))).as("git checked the link out as a link").isTrue();
    }

    @Test
    void committedLinksAreKeptAndAKeptLinkIsNoChange() {
        PristineSnapshot p = PristineSnapshot.take(ws, protectedPaths, dir.resolve("pristine"));
        assertThat(p.links()).containsEntry("tests/data.json", "../fixtures/data.json").containsEntry("tests/fixtures", "../fixtures");
        assertThat(Files.isSymbolicLink(p.dir().resolve("tests/data.json"))).isTrue();
        assertThat(p.refusedLinks()).containsOnlyKeys("tests/host");
        assertThat(p.refusedLinks().get("tests/host")).isEqualTo("is a link to ../../secret.txt, which leads out of the tree; graded without it");
        assertThat(p.changes(ws)).isEmpty();
        assertThat(p.corrupted()).isEmpty();
        assertThat(p.corruptedQuick()).isEmpty();
    }

    @Test
    void aLinkTheAgentChangesOrRemovesIsAChangeAndRestoreBringsItBack() throws Exception {
        PristineSnapshot p = PristineSnapshot.take(ws, protectedPaths, dir.resolve("pristine"));
        Files.delete(ws.resolve("tests/data.json"));
        Files.createSymbolicLink(ws.resolve("tests/data.json"), Path.of("../calc/ops.py"));
        Files.delete(ws.resolve("tests/fixtures"));
        Files.delete(ws.resolve("tests/host"));
        Files.writeString(ws.resolve("tests/host"), "now a file\n");
        assertThat(p.changes(ws)).containsExactlyInAnyOrder(new PristineSnapshot.Change("tests/data.json", "modified"),
                new PristineSnapshot.Change("tests/fixtures", "deleted"), new PristineSnapshot.Change("tests/host", "replaced"));

        p.restore(ws);
        assertThat(Files.readSymbolicLink(ws.resolve("tests/data.json"))).isEqualTo(Path.of("../fixtures/data.json"));
        assertThat(Files.readSymbolicLink(ws.resolve("tests/fixtures"))).isEqualTo(Path.of("../fixtures"));
        assertThat(Files.readSymbolicLink(ws.resolve("tests/host"))).isEqualTo(Path.of("../../secret.txt"));
        assertThat(p.changes(ws)).isEmpty();
    }

    @Test
    void theGradingTreeHasTheContainedLinksAsLinksAndLeavesTheOthersOutWithTheReason() throws Exception {
        PristineSnapshot p = PristineSnapshot.take(ws, protectedPaths, dir.resolve("pristine"));
        Path grade = dir.resolve("grade-1");
        GradingTree.Built built = GradingTree.build(ws, p, grade, null, null);
        assertThat(Files.readSymbolicLink(grade.resolve("README.md"))).isEqualTo(Path.of("docs/README.md"));
        assertThat(grade.resolve("README.md")).hasContent("the readme");
        assertThat(Files.readSymbolicLink(grade.resolve("tests/data.json"))).isEqualTo(Path.of("../fixtures/data.json"));
        assertThat(grade.resolve("tests/data.json")).hasContent("{\"n\": 3}");
        assertThat(Files.readSymbolicLink(grade.resolve("tests/fixtures"))).isEqualTo(Path.of("../fixtures"));
        assertThat(Files.exists(grade.resolve("tests/host"), LinkOption.NOFOLLOW_LINKS)).isFalse();
        assertThat(Files.exists(grade.resolve("calc/abs_link"), LinkOption.NOFOLLOW_LINKS)).isFalse();
        assertThat(built.dropped()).containsExactlyInAnyOrder(
                "calc/abs_link: is a link to the absolute path " + secret + "; a link kept in the tree must be relative and stay inside it",
                "tests/host: is a link to ../../secret.txt, which leads out of the tree; graded without it");
        assertThat(built.copied().links()).isEqualTo(3);
    }

    @Test
    void aLinkTheAgentPutsWhereTheGradersFolderIsIsReplacedByTheFolder() throws Exception {
        PristineSnapshot p = PristineSnapshot.take(ws, protectedPaths, dir.resolve("pristine"));
        Fixtures.write(ws.resolve("mine/test_ops.py"), "def test_add():\n    pass\n");
        Fixtures.deleteTree(ws.resolve("tests"));
        Files.createSymbolicLink(ws.resolve("tests"), Path.of("mine"));
        Path grade = dir.resolve("grade-1");
        GradingTree.Built built = GradingTree.build(ws, p, grade, null, null);
        assertThat(Files.isSymbolicLink(grade.resolve("tests"))).isFalse();
        assertThat(Fixtures.read(grade.resolve("tests/test_ops.py"))).contains("assert add(1, 2) == 3");
        assertThat(grade.resolve("mine/test_ops.py")).hasContent("def test_add():\n    pass");
        assertThat(built.dropped()).contains("tests: a link where the grader's files need a folder; replaced by the folder");
    }

    @Test
    void aFolderTheAgentPutsWhereTheGradersFileIsIsReplacedByTheFile() throws Exception {
        PristineSnapshot p = PristineSnapshot.take(ws, protectedPaths, dir.resolve("pristine"));
        Files.delete(ws.resolve("tests/test_ops.py"));
        Fixtures.write(ws.resolve("tests/test_ops.py/x.py"), "x = 1\n"); // a folder named like the grader's file
        ProtectedPaths justTheFile = new ProtectedPaths(List.of("tests/test_ops.py"));
        PristineSnapshot q = PristineSnapshot.take(dir.resolve("repo"), justTheFile, dir.resolve("pristine-2"));
        GradingTree.Built built = GradingTree.build(ws, q, dir.resolve("grade-1"), null, null);
        assertThat(Fixtures.read(dir.resolve("grade-1/tests/test_ops.py"))).contains("assert add(1, 2) == 3");
        assertThat(built.dropped()).contains("tests/test_ops.py: a folder where the grader's file goes; replaced by the file");
        assertThat(p.changes(ws)).contains(new PristineSnapshot.Change("tests/test_ops.py", "replaced"));
    }

    /**
     * The whole episode: a test reads its expected value through a committed link in tests/. Before, the link
     * was left out of the grading tree (and reported as an added protected file), so the honest fix got 0.
     */
    @Test
    void anHonestFixGradesOneWhenATestReadsThroughACommittedLink() throws Exception {
        Environment env = Environment.load(exampleWithALink());
        try (Episode ep = new Episode(env, env.workspacePath().orElseThrow(), options())) {
            ep.reset();
            Fixtures.write(ep.workspace().resolve("calc/ops.py"), FIX);
            VerifyReport r = ep.verify();
            assertThat(r.reward()).as(r.reason() + " " + r.details()).isEqualTo(1.0);
            assertThat(r.tamper().protectedChanges()).isEmpty();
            assertThat(r.tamper().droppedFromGrading()).isEmpty();
            assertThat(r.hackFindings()).noneMatch(f -> f.detector().startsWith("protected"));
        }
    }

    /** Graded after the fact (crucible verify): the monitor compares every file with the original, links included. */
    @Test
    void gradedAfterTheFactAKeptLinkIsNoFindingAndARepointedOneIs() throws Exception {
        Environment env = Environment.load(exampleWithALink());
        Path agent = dir.resolve("agent-ws");
        // the agent's finished workspace: a copy of the task's, history and links as they are
        assertThat(new ProcessBuilder("cp", "-a", env.workspacePath().orElseThrow().toString(), agent.toString()).start().waitFor()).isZero();
        Fixtures.write(agent.resolve("calc/ops.py"), FIX);
        VerifyReport r = Episode.gradePostHoc(env, agent, options());
        assertThat(r.reward()).as(r.reason() + " " + r.details() + " " + r.hackFindings()).isEqualTo(1.0);
        assertThat(r.hackFindings()).as("findings").noneMatch(f -> f.detector().startsWith("protected"));

        Fixtures.write(agent.resolve("calc/six.txt"), "6\n");
        Files.delete(agent.resolve("tests/sum.txt"));
        Files.createSymbolicLink(agent.resolve("tests/sum.txt"), Path.of("../calc/six.txt"));
        VerifyReport hacked = Episode.gradePostHoc(env, agent, options().withStateDir(dir.resolve("state2")));
        assertThat(hacked.hackFindings()).anySatisfy(f -> {
            assertThat(f.detector()).startsWith("protected");
            assertThat(f.severity()).isEqualTo("critical");
            assertThat(f.path()).isEqualTo("tests/sum.txt");
        });
        assertThat(hacked.tamper().protectedChanges()).containsExactly(new PristineSnapshot.Change("tests/sum.txt", "modified"));
    }

    private EpisodeOptions options() {
        EpisodeOptions opt = EpisodeOptions.defaults().withIntervals(java.time.Duration.ofMillis(200), java.time.Duration.ofMillis(50))
                .withStateDir(dir.resolve("state"));
        return Box.availability().ok() ? opt.withGradingExecutor(new GradingSandbox(BoxLimits.defaults())) : opt; // as crucible run grades
    }

    /** The example environment, its test_add reading the expected sum through a committed link in tests/. */
    private Path exampleWithALink() throws Exception {
        Path manifest = Fixtures.copyExample(dir.resolve("env"));
        Path example = manifest.getParent().resolve("workspace");
        Fixtures.write(example.resolve("fixtures/sum.txt"), "5\n");
        Files.createSymbolicLink(example.resolve("tests/sum.txt"), Path.of("../fixtures/sum.txt"));
        Path test = example.resolve("tests/test_ops.py");
        Files.writeString(test, Files.readString(test).replace("    assert add(2, 3) == 5\n",
                "    import pathlib\n    assert add(2, 3) == int((pathlib.Path(__file__).parent / 'sum.txt').read_text())\n"));
        Fixtures.git(example, "init", "-q");
        Fixtures.git(example, "add", "-A");
        Fixtures.git(example, "commit", "-q", "-m", "a test reads through a link");
        return manifest;
    }
}
