package dev.crucible.verifier.grade;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.verifier.pristine.FileHashes;
import dev.crucible.verifier.support.Fixtures;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which grader files hold bytes the agent never saw (blind round 8): a hidden test's file is hidden unless the agent's
 * tree showed the same bytes at that path; the task's own test files, restored pristine, are not.
 */
class GraderFilesTest {
    @TempDir Path dir;

    @Test
    void onlyHiddenBytesAreHidden() {
        Path root = dir.resolve("tree");
        Path hidden = dir.resolve("hidden");
        Fixtures.write(root.resolve("tests/test_compare.py"), "def test_visible():\n    pass\n");
        Fixtures.write(root.resolve("tests/test_same.py"), "def test_same():\n    pass\n");
        Fixtures.write(root.resolve("tests/test_precedence.py"), "def test_hidden():\n    pass\n");
        Fixtures.write(root.resolve("tests/data/precedence.txt"), "1.0.0-alpha\n1.0.0\n");
        Fixtures.write(hidden.resolve("tests/test_precedence.py"), "def test_hidden():\n    pass\n");
        Fixtures.write(hidden.resolve("tests/data/precedence.txt"), "1.0.0-alpha\n1.0.0\n");
        Fixtures.write(hidden.resolve("tests/test_same.py"), "def test_same():\n    pass\n");
        String sameHash = FileHashes.sha256(root.resolve("tests/test_same.py"));
        // what the agent saw: test_compare and test_same as they are; test_precedence at the task commit was another file
        Map<String, String> pristine = Map.of("tests/test_compare.py", FileHashes.sha256(root.resolve("tests/test_compare.py")),
                "tests/test_same.py", sameHash, "tests/test_precedence.py", "0".repeat(64));
        Map<String, GraderFiles.Entry> files = GraderFiles.of(root, pristine, hidden, null);
        assertThat(files.get("tests/test_compare.py").hidden()).as("the task's own test file").isFalse();
        assertThat(files.get("tests/test_same.py").hidden()).as("a hidden overlay with the bytes the agent saw").isFalse();
        assertThat(files.get("tests/test_precedence.py").hidden()).as("a hidden overlay of a visible path, new bytes").isTrue();
        assertThat(files.get("tests/data/precedence.txt").hidden()).as("a hidden data file").isTrue();
        assertThat(files.values()).allMatch(GraderFiles.Entry::test);
    }
}
