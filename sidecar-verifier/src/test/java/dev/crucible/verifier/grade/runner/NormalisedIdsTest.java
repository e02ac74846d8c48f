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

    static final Map<String, String> CLOCK = Map.of("tests/test_clock.py", """
            import datetime as dt

            import pytest


            @pytest.mark.parametrize("s", [
                "2018-01-01",
                "10:11:12 2019-01-02",
                dt.datetime.now().strftime("%H:%M:%S %Y-%m-%d"),
                dt.datetime.now().strftime("%m-%d-%Y %H:%M:%S"),
                dt.datetime.now(dt.timezone.utc).isoformat(),
                dt.date.today().isoformat(),
            ])
            def test_c(s):
                assert s
            """);

    /**
     * marshmallow-code/marshmallow (issue 35): parametrize values made from {@code datetime.now()} put the clock in the
     * id, so two collections never share it (the cross-check run found "no result to confirm it", a baseline excluded
     * it, a fix task's failToPass never matched the next run). The clock's date-times become {@code <now>}; fixed dates stay.
     */
    @Test
    void idsCarryNoClock() throws Exception {
        String v = "type: test-suite\ncommand: " + tool("python3", "/usr/bin/python3") + " -m pytest -q tests\n";
        VerifyReport one = grade(dir.resolve("one"), v, CLOCK);
        Thread.sleep(1100); // the next collection's clock reads another second
        VerifyReport two = grade(dir.resolve("two"), v, CLOCK);
        assertThat(statuses(one)).containsOnlyKeys("tests/test_clock.py::test_c[2018-01-01]", "tests/test_clock.py::test_c[10:11:12 2019-01-02]",
                "tests/test_clock.py::test_c[<now>]", "tests/test_clock.py::test_c[<now>] #2", "tests/test_clock.py::test_c[<now>] #3",
                "tests/test_clock.py::test_c[<now>] #4");
        assertThat(statuses(two).keySet()).isEqualTo(statuses(one).keySet());
        assertThat(statuses(two).values()).containsOnly("passed");
    }
}
