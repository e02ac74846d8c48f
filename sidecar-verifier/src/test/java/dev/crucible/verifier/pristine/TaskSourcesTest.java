package dev.crucible.verifier.pristine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.verifier.support.Fixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which of a grading tree's Python sources the agent changed or added, against the task's tree, and the task's text. */
class TaskSourcesTest {
    @TempDir
    Path dir;

    @Test
    void changedSourcesCarryTheTaskTextAndNewOnesAreAdded() throws Exception {
        Path task = dir.resolve("task");
        Path grade = dir.resolve("grade");
        Fixtures.write(task.resolve("pkg/config.py"), "def load(p):\n    return open(p).read()\n");
        Fixtures.write(task.resolve("pkg/ops.py"), "X = 1\n");
        Fixtures.write(task.resolve("tests/test_x.py"), "def test(): pass\n");
        Fixtures.write(grade.resolve("pkg/config.py"), "def load(p):\n    return scrape(open(p).read())\n");
        Fixtures.write(grade.resolve("pkg/ops.py"), "X = 1\n");
        Fixtures.write(grade.resolve("pkg/_spy.py"), "def scrape(t):\n    return t\n");
        Fixtures.write(grade.resolve("tests/test_x.py"), "def test(): assert 0\n"); // a grader file: not the agent's
        Fixtures.write(grade.resolve("pkg/__pycache__/ops.cpython-311.py"), "cached\n");
        Fixtures.write(grade.resolve("README.md"), "not Python\n");
        Files.createSymbolicLink(grade.resolve("pkg/alias.py"), Path.of("ops.py"));

        TaskSources.Changes c = TaskSources.compare(task, grade, Set.of("tests/test_x.py"));

        assertThat(c.changed()).isEqualTo(Map.of("pkg/config.py", "def load(p):\n    return open(p).read()\n"));
        assertThat(c.added()).containsExactlyInAnyOrder("pkg/_spy.py", "pkg/alias.py");
    }

    @Test
    void noTaskTreeIsUnknown() {
        assertThat(TaskSources.compare(null, dir, Set.of())).isNull();
    }
}
