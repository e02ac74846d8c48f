package dev.crucible.verifier.grade.runner;

import static dev.crucible.verifier.grade.runner.RunnerFixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.verifier.VerifyReport;
import dev.crucible.verifier.grade.result.TestIds;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Parametrized ids that carry the grading tree's path, a temporary folder or an object's address (real pytest):
 * the same in every grading, so lists written from one run (a baseline, a fix task) match the next.
 */
class NormalisedIdsTest {
    @TempDir
    Path dir;

    static final Map<String, String> REPO = Map.of("tests/test_p.py", """
            import os
            import tempfile

            import pytest

            HERE = os.path.dirname(os.path.abspath(__file__))


            @pytest.mark.parametrize("p", [HERE, tempfile.mkdtemp(), object()], ids=str)
            def test_p(p):
                assert p is not None
            """);

    @Test
    void idsCarryNoSandboxPathTemporaryNameOrAddress() {
        String v = "type: test-suite\ncommand: " + tool("python3", "/usr/bin/python3") + " -m pytest -q tests\n";
        VerifyReport one = grade(dir.resolve("one"), v, REPO);
        VerifyReport two = grade(dir.resolve("two"), v, REPO);
        assertThat(statuses(one)).containsOnlyKeys("tests/test_p.py::test_p[tests]", "tests/test_p.py::test_p[<tmp>]",
                "tests/test_p.py::test_p[<object object at 0x?>]");
        assertThat(statuses(two).keySet()).isEqualTo(statuses(one).keySet());
        assertThat(TestIds.normalise("pkg/tmp/test_x.py::t[/tmp/a1b2]", null)).as("a tmp folder of the tree stays").isEqualTo("pkg/tmp/test_x.py::t[<tmp>]");
    }
}
