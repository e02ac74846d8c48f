package dev.crucible.verifier.grade;

import dev.crucible.verifier.grade.result.JUnitXmlParser;
import dev.crucible.verifier.grade.result.TestCase;
import dev.crucible.verifier.grade.result.TestStatus;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.crucible.verifier.support.Fixtures;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** JUnit XML written by real pytest (both families), TAP from a real script, hostile XML refused. */
class ReportParsersTest {
    @TempDir
    static Path repo;

    @BeforeAll
    static void writeSuite() {
        Fixtures.write(repo.resolve("pkg/__init__.py"), "");
        // a mixin whose test method lives in another module: xunit1's `file` names __init__.py (cachetools)
        Fixtures.write(repo.resolve("pkg/tests/__init__.py"), "class Mixin:\n    def test_inherited(self):\n        assert True\n");
        Fixtures.write(repo.resolve("pkg/tests/test_mix.py"), """
                import pytest

                def test_pass():
                    assert 1 + 1 == 2

                def test_fail():
                    assert 1 + 1 == 3

                @pytest.mark.skip(reason="not today")
                def test_skip():
                    pass

                @pytest.mark.xfail(reason="known bug")
                def test_xfail():
                    assert False

                @pytest.mark.xfail(reason="fixed already")
                def test_xpass():
                    assert True

                @pytest.fixture
                def broken():
                    raise RuntimeError("fixture exploded")

                def test_error(broken):
                    pass

                @pytest.mark.parametrize("a,b", [(1, 2), (3, 4)])
                def test_param(a, b):
                    assert a < b

                class TestGroup:
                    def test_method(self):
                        assert True

                from . import Mixin

                class TestWithMixin(Mixin):
                    pass
                """);
        Fixtures.write(repo.resolve("tests/test_top.py"), "def test_top():\n    pass\n");
    }

    private static String run(String... args) throws Exception {
        Process p = new ProcessBuilder(args).directory(repo.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        return out;
    }

    @Test
    void pytestXunit1IdsAreNodeIdsAndStatusesAreExact() throws Exception {
        Path xml = repo.resolve("out1.xml");
        run("python3", "-m", "pytest", "-q", "-p", "no:cacheprovider", "--junitxml=" + xml, "-o", "junit_family=xunit1");
        Map<String, TestStatus> got = JUnitXmlParser.parse(xml, true).stream().collect(Collectors.toMap(TestCase::id, TestCase::status));
        String collected = run("python3", "-m", "pytest", "-q", "--collect-only", "-p", "no:cacheprovider");
        List<String> nodeIds = Arrays.stream(collected.split("\n")).filter(l -> l.contains("::")).map(String::strip).toList();
        assertThat(got.keySet()).containsExactlyInAnyOrderElementsOf(nodeIds);
        assertThat(got).containsEntry("pkg/tests/test_mix.py::test_pass", TestStatus.PASSED)
                .containsEntry("pkg/tests/test_mix.py::test_fail", TestStatus.FAILED)
                .containsEntry("pkg/tests/test_mix.py::test_skip", TestStatus.SKIPPED)
                .containsEntry("pkg/tests/test_mix.py::test_xfail", TestStatus.XFAILED)
                .containsEntry("pkg/tests/test_mix.py::test_xpass", TestStatus.PASSED)
                .containsEntry("pkg/tests/test_mix.py::test_error", TestStatus.ERROR)
                .containsEntry("pkg/tests/test_mix.py::test_param[1-2]", TestStatus.PASSED)
                .containsEntry("pkg/tests/test_mix.py::TestGroup::test_method", TestStatus.PASSED)
                .containsEntry("pkg/tests/test_mix.py::TestWithMixin::test_inherited", TestStatus.PASSED)
                .containsEntry("tests/test_top.py::test_top", TestStatus.PASSED);
        assertThat(TestStatus.SKIPPED.counts(false)).isFalse();
        assertThat(TestStatus.XFAILED.counts(false)).isFalse();
        assertThat(TestStatus.XFAILED.counts(true)).isTrue();
    }

    @Test
    void pytestXunit2IdsAreDerivedFromClassnames() throws Exception {
        Path xml = repo.resolve("out2.xml");
        run("python3", "-m", "pytest", "-q", "-p", "no:cacheprovider", "--junitxml=" + xml, "-o", "junit_family=xunit2");
        List<String> ids = JUnitXmlParser.parse(xml, true).stream().map(TestCase::id).toList();
        assertThat(ids).contains("pkg/tests/test_mix.py::TestGroup::test_method", "tests/test_top.py::test_top", "pkg/tests/test_mix.py::test_fail");
    }

    @Test
    void tapFromARealScript() throws Exception {
        Fixtures.write(repo.resolve("t.sh"), """
                echo "TAP version 13"
                echo "1..5"
                echo "ok 1 - adds"
                echo "not ok 2 - divides # TODO negative numbers"
                echo "ok 3 - network # SKIP offline"
                echo "not ok 4 - parses"
                """);
        List<TestCase> t = TapParser.parse(run("sh", "t.sh"));
        assertThat(t).extracting(TestCase::status).containsExactly(TestStatus.PASSED, TestStatus.XFAILED, TestStatus.SKIPPED,
                TestStatus.FAILED, TestStatus.MISSING);
        assertThat(t.get(0).id()).isEqualTo("1 adds");
    }

    @Test
    void entitiesAndDoctypesAreRefused() {
        byte[] evil = "<?xml version=\"1.0\"?><!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]><testsuite><testcase name=\"&e;\"/></testsuite>"
                .getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> JUnitXmlParser.parse(evil, false)).isInstanceOf(IOException.class);
    }
}
